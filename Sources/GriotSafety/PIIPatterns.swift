/// The scrubber's regular expressions, as text (PCRE2 syntax that NSRegularExpression also
/// reads, so a peer can run the very same patterns). The patterns only find candidates;
/// `PIINumberShape` and the checks in `PIIScrubber` decide what a candidate is.
public enum PIIPatterns {
    /// Street types a US address ends its street with (USPS-style names and the usual short forms).
    static let streetSuffixes = [
        "Alley", "Avenue", "Bend", "Bluff", "Bluffs", "Boulevard", "Branch", "Bridge", "Brook", "Brooks",
        "Burg", "Burgs", "Bypass", "Camp", "Canyon", "Cape", "Causeway", "Center", "Centers", "Circle",
        "Circles", "Cliff", "Cliffs", "Club", "Common", "Commons", "Corner", "Corners", "Course", "Court",
        "Courts", "Cove", "Coves", "Creek", "Crescent", "Crest", "Crossing", "Crossroad", "Curve", "Dale",
        "Dam", "Divide", "Drive", "Drives", "Estate", "Estates", "Expressway", "Extension", "Extensions",
        "Fall", "Falls", "Ferry", "Field", "Fields", "Flat", "Flats", "Ford", "Fords", "Forest", "Forge",
        "Forges", "Fork", "Forks", "Fort", "Freeway", "Garden", "Gardens", "Gateway", "Glen", "Glens",
        "Green", "Greens", "Grove", "Groves", "Harbor", "Harbors", "Haven", "Heights", "Highway", "Hill",
        "Hills", "Hollow", "Inlet", "Island", "Islands", "Isle", "Junction", "Junctions", "Key", "Keys",
        "Knoll", "Knolls", "Lake", "Lakes", "Land", "Landing", "Lane", "Light", "Lights", "Loaf", "Lock",
        "Locks", "Lodge", "Loop", "Mall", "Manor", "Manors", "Meadow", "Meadows", "Mews", "Mill", "Mills",
        "Mission", "Motorway", "Mount", "Mountain", "Mountains", "Neck", "Orchard", "Oval", "Overpass",
        "Park", "Parks", "Parkway", "Parkways", "Pass", "Passage", "Path", "Pike", "Pine", "Pines", "Place",
        "Plain", "Plains", "Plaza", "Point", "Points", "Port", "Ports", "Prairie", "Radial", "Ramp", "Ranch",
        "Rapid", "Rapids", "Rest", "Ridge", "Ridges", "River", "Road", "Roads", "Route", "Row", "Rue", "Run",
        "Shoal", "Shoals", "Shore", "Shores", "Skyway", "Spring", "Springs", "Spur", "Spurs", "Square",
        "Squares", "Station", "Stravenue", "Stream", "Street", "Streets", "Summit", "Terrace", "Throughway",
        "Trace", "Track", "Trafficway", "Trail", "Tunnel", "Turnpike", "Underpass", "Union", "Unions",
        "Valley", "Valleys", "Via", "Viaduct", "View", "Views", "Village", "Villages", "Ville", "Vista",
        "Walk", "Walks", "Wall", "Way", "Ways", "Well", "Wells",
    ]
    /// Short forms, which may carry their own period ("Rd.", "St.").
    static let streetAbbreviations = [
        "Ave", "Blvd", "Cir", "Ct", "Dr", "Hwy", "Ln", "Pkwy", "Pl", "Rd", "Sq", "St", "Ter", "Trl",
    ]

    /// House number, street name, type, then an optional unit, then optionally the city, state and
    /// ZIP after a comma or a line break. The state is two capitals or one or two capitalised
    /// words; the ZIP that must follow keeps that loose form from matching ordinary prose.
    public static let address: String = {
        let word = "[A-Z][a-z]+(?:['-][A-Za-z]+)?"
        let suffix = "(?:(?:" + streetSuffixes.joined(separator: "|") + ")\\b|(?:"
            + streetAbbreviations.joined(separator: "|") + ")(?:\\.|\\b))"
        let street = "\\d{1,6} (?:" + word + " ){1,3}" + suffix
        let unit = "(?: (?:Apt\\.?|Suite|Ste\\.?|Unit|Room|#) ?#?\\d{1,5}[A-Za-z]?\\b)?"
        let city = word + "(?: " + word + "){0,2}"
        let state = "(?:[A-Z]{2}|" + word + "(?: " + word + ")?)"
        let place = "(?:(?:,? ?\\n|, ?)" + city + ", " + state + " \\d{5}(?:-\\d{4})?(?![0-9]))?"
        return street + unit + place
    }()

    /// A run of digit groups joined by one space, dot or dash, or by parentheses, with an
    /// optional leading "+" or "(": every phone, card, SSN and IPv4 layout is one of these, and
    /// the run is taken whole so a rejected number is never re-read as a shorter one.
    public static let numberRun = "[+(]?\\d+(?:(?:[ .\\-]|\\)[ .\\-]?|[ .\\-]?\\()\\d+)*"

    /// Candidates that start with a digit, "+" or "(": an address (group 1) or a number run
    /// (group 2). PCRE2 derives a start-byte set from it and skips everything else fast.
    public static let numeric = "(" + address + ")|(" + numberRun + ")"

    /// An email address, matched anchored at the start of its local part (found by walking back
    /// from an "@"). The domain ends in a letters-only top-level label, so a sentence's final
    /// period stays outside.
    public static let email =
        "[A-Za-z0-9._%+\\-]+@[A-Za-z0-9](?:[A-Za-z0-9\\-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9\\-]*[A-Za-z0-9])?)*\\.[A-Za-z]{2,24}(?![A-Za-z0-9\\-])"
}
