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

    /// A UK postcode ("NW1 6XE", "SW1A 1AA", "M1 1AE").
    static let ukPostcode = "[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}(?![A-Za-z0-9])"

    /// House number (with an optional letter, "221B"), street name, type, then an optional unit,
    /// then optionally the place: city, state and ZIP after a comma or a line break, or after a
    /// space when the state is two capitals ("Springfield IL 62704"), or a UK city and postcode
    /// ("London NW1 6XE"). The ZIP or postcode that must follow keeps the loose city and state
    /// from matching ordinary prose.
    public static let address: String = {
        let word = "[A-Z][a-z]+(?:['-][A-Za-z]+)?"
        let suffix = "(?:(?:" + streetSuffixes.joined(separator: "|") + ")\\b|(?:"
            + streetAbbreviations.joined(separator: "|") + ")(?:\\.|\\b))"
        let street = "\\d{1,6}[A-Z]? (?:" + word + " ){1,3}" + suffix
        let unit = "(?:,? (?:Apt\\.?|Suite|Ste\\.?|Unit|Room|Flat|#) ?#?\\d{1,5}[A-Za-z]?\\b)?"
        let city = word + "(?: " + word + "){0,2}"
        let state = "(?:[A-Z]{2}|" + word + "(?: " + word + ")?)"
        let zip = " \\d{5}(?:-\\d{4})?(?![0-9])"
        let place = "(?:(?:,? ?\\n|, ?)" + city + ", " + state + zip
            + "|,? " + city + " [A-Z]{2}" + zip
            + "|(?:,? ?\\n|, ?)" + city + ",? " + ukPostcode + ")?"
        return street + unit + place
    }()

    /// The same in lower case with no commas ("742 evergreen terrace springfield il 62704"): only
    /// with the state and ZIP, since lower-case words and a street type alone are ordinary prose
    /// ("5 miles down the road").
    public static let lowerCaseAddress: String = {
        let types = (streetSuffixes + streetAbbreviations).map { $0.lowercased() }.joined(separator: "|")
        return "\\d{1,6} (?:[a-z]+ ){1,3}(?:" + types + ")\\.?(?: (?:apt\\.?|suite|unit|#) ?\\d{1,5}[a-z]?)?,? "
            + "(?:[a-z]+,? ){1,3}[a-z]{2},? \\d{5}(?:-\\d{4})?(?![0-9])"
    }()

    /// The same in capitals, as on an envelope ("471 KNIGHT VILLAGE SUITE 038, PORT MICHELLE, MI
    /// 26198"); the street alone counts too, since prose is seldom written in capitals.
    public static let upperCaseAddress: String = {
        let types = (streetSuffixes + streetAbbreviations).map { $0.uppercased() }.joined(separator: "|")
        return "\\d{1,6}[A-Z]? (?:[A-Z]+ ){1,3}(?:" + types + ")(?![A-Za-z])\\.?(?:,? (?:APT\\.?|SUITE|STE\\.?|UNIT|#) ?#?\\d{1,5}[A-Z]?)?"
            + "(?:,? (?:[A-Z]+,? ){1,3}[A-Z]{2},? \\d{5}(?:-\\d{4})?(?![0-9]))?"
    }()

    /// French addresses: number (with "bis" or "ter"), street type in lower case, the name
    /// (capitalised words with their articles, accents as UTF-8 bytes), then optionally the
    /// postcode and city: "12 rue de la Paix, 75002 Paris", "3 bis boulevard Saint-Michel".
    public static let frenchAddress: String = {
        // A capitalised word: an ASCII or Latin-1 capital (UTF-8 C3 80–9E), then lower-case letters.
        let word = "(?:[A-Z]|\\xC3[\\x80-\\x9E])(?:[a-z']|\\xC3[\\x9F-\\xBF])+"
        let article = "(?:(?:de la|de l'|du|des|de|la|le|les) |d'|l')?"
        let type = "(?:rue|avenue|av\\.|boulevard|bd|place|all\\xC3\\xA9e|allee|impasse|chemin|quai|route|cours|square|passage)"
        let name = article + word + "(?:[ -]" + article + word + "){0,4}"
        let city = word + "(?:[ -]" + word + "){0,2}"
        return "\\d{1,4}(?: (?:bis|ter))?,? " + type + " " + name + "(?:, ?\\d{5} " + city + ")?"
    }()

    /// Addresses that do not start with a digit, found by their own pattern when the text holds
    /// one of `wordedAddressCues`: a post office box ("P.O. Box 1187, Tulsa, OK 74101") and a
    /// German street with its number ("Lindenstraße 12, 10115 Berlin", "Am Marktplatz 3").
    public static let wordedAddress: String = {
        let word = "[A-Z][a-z]+(?:['-][A-Za-z]+)?"
        let usPlace = "(?:, ?" + word + "(?: " + word + "){0,2}, (?:[A-Z]{2}|" + word + ") \\d{5}(?:-\\d{4})?(?![0-9]))?"
        let box = "(?:P\\. ?O\\. ?|PO |Post Office )Box \\d{1,6}(?![0-9])" + usPlace
        // German letters: ASCII, or ä ö ü ß é (UTF-8 C3 xx).
        let capital = "(?:[A-Z]|\\xC3[\\x84\\x96\\x9C])"
        let letters = "(?:[a-z]|\\xC3[\\x9F-\\xBF])"
        let streetWord = capital + letters + "*(?:stra\\xC3\\x9Fe|strasse|str\\.|weg|gasse|platz|allee|damm|ufer|ring)"
        let streetPair = capital + letters + "+(?:e[rns])? (?:Stra\\xC3\\x9Fe|Strasse|Str\\.|Weg|Gasse|Platz|Allee|Damm|Ufer|Ring)"
        let preposition = "(?:(?:Am|Im|An der|Auf dem|In der|Zum|Zur) )"
        let street = "(?:" + preposition + "?(?:" + streetPair + "|" + streetWord + ")|" + preposition + capital + letters + "+)"
        let city = capital + letters + "+(?:[ -](?:am|an der|" + capital + letters + "+))*"
        let german = street + " \\d{1,4} ?[a-z]?(?![0-9A-Za-z])(?:, ?\\d{5} " + city + ")?"
        return box + "|" + german
    }()

    /// Endings of the word before a number that send a text through `wordedAddress` (it is not
    /// run otherwise): "Box 1187", "Lindenstraße 12", "Hauptstr. 5", "Kirchweg 4".
    static let wordedAddressCues = ["box", "stra\u{DF}e", "strasse", "str.", "weg", "gasse", "platz", "allee", "damm", "ufer", "ring"]

    /// A run of digit groups joined by one space, dot, dash or slash (a dash or slash may have a
    /// space either side: "617 – 555 – 0161" once the en dash is read as "-"), or by parentheses, with an
    /// optional leading "+" or "(": every phone, card, SSN and IPv4 layout is one of these, and
    /// the run is taken whole so a rejected number is never re-read as a shorter one.
    public static let numberRun = "[+(]?\\d+(?:(?: ?[\\-/] ?|[ .]|\\)[ .\\-]?|[ .\\-]?\\()\\d+)*"

    /// Candidates that start with a digit, "+" or "(": an address (group 1) or a number run
    /// (group 2). PCRE2 derives a start-byte set from it and skips everything else fast.
    public static let numeric = "(" + address + "|" + frenchAddress + "|" + lowerCaseAddress + "|" + upperCaseAddress + ")|(" + numberRun + ")"

    /// An email address, matched anchored at the start of its local part (found by walking back
    /// from an "@"). The local part may hold letters outside ASCII ("zofia.łukasiewicz@…", as
    /// RFC 6531 allows): PCRE2 runs on bytes, so any byte of a multi-byte character is taken. The domain ends in a letters-only top-level label, so a sentence's final
    /// period stays outside.
    public static let email =
        "[A-Za-z0-9._%+\\-\\x{80}-\\x{FF}]+@[A-Za-z0-9](?:[A-Za-z0-9\\-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9\\-]*[A-Za-z0-9])?)*\\.[A-Za-z]{2,24}(?![A-Za-z0-9\\-])"
}
