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
    /// Short forms, which may carry their own period ("Rd.", "St."); the last row is Australian
    /// and British ("Cres", "Pde", "Tce", "Cl").
    static let streetAbbreviations = [
        "Ave", "Blvd", "Cir", "Ct", "Dr", "Hwy", "Ln", "Pkwy", "Pl", "Rd", "Sq", "St", "Ter", "Trl",
        "Cres", "Pde", "Tce", "Cl", "Esp", "Gr", "Cct", "Crt", "Expy", "Fwy",
    ]
    /// Street types of Australia, Britain and Canada that the USPS list lacks.
    static let commonwealthSuffixes = ["Gate", "Close", "Parade", "Esplanade", "Rise", "Wynd", "Quay", "Chase", "Broadway"]

    /// A UK postcode ("NW1 6XE", "SW1A 1AA", "M1 1AE").
    static let ukPostcode = "[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}(?![A-Za-z0-9])"
    /// A Canadian postal code ("M5R 2A5").
    static let canadianPostalCode = "[A-Z]\\d[A-Z] ?\\d[A-Z]\\d(?![A-Za-z0-9])"
    static let zip = "\\d{5}(?:-\\d{4})?(?![0-9])"

    /// A capitalised word, with Latin-1 letters as UTF-8 bytes ("Montréal", "Lindenbühl") and
    /// joined parts ("Saint-Denis", "King's", "O'Brien").
    static let capitalWord: String = {
        let capital = "(?:[A-Z]|\\xC3[\\x80-\\x9E])", letters = "(?:[a-z]|\\xC3[\\x9F-\\xBF])"
        return capital + letters + "+(?:['-](?:[A-Za-z]|\\xC3[\\x80-\\xBF])" + letters + "*)*"
    }()

    /// A town and, in Britain, its county ("Little Dunmow, Essex"); "St. John's", "Mt. Airy".
    static let city: String = {
        let word = "(?:(?:St|Ste|Mt|Ft|Pt)\\.|" + capitalWord + ")"
        return word + "(?: " + word + "){0,2}(?:, " + word + "(?: " + word + ")?)?"
    }()

    /// What follows the town, by country: a Canadian province and postal code, an Australian
    /// state and postcode, a UK postcode, or a US state (two capitals, AP style "Ga." or
    /// "N.C.", or the name) with its ZIP when written.
    static let region: String = {
        let apStates = "(?:(?:Ala|Ariz|Ark|Calif|Colo|Conn|Del|Fla|Ga|Ill|Ind|Kan|Kans|Ky|La|Md|Mass|Mich|Minn|Miss|Mo|Mont|Neb|Nebr|Nev|Okla|Ore|Pa|Penn|Tenn|Tex|Vt|Va|Wash|Wis|Wyo)\\.|N\\.[HJMYCD]\\.|S\\.[CD]\\.|R\\.I\\.|W\\.Va\\.|D\\.C\\.)"
        let stateNames = "(?:Alaska|Hawaii|Idaho|Iowa|Maine|Ohio|Texas|Utah|Alabama|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Illinois|Indiana|Kansas|Kentucky|Louisiana|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming)(?![a-z])"
        let provinces = "(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|Alberta|British Columbia|Manitoba|New Brunswick|Newfoundland|Nova Scotia|Ontario|Quebec|Qu\\xC3\\xA9bec|Saskatchewan|Ont\\.|Que\\.|Man\\.|Alta\\.|Sask\\.|B\\.C\\.|N\\.S\\.|N\\.B\\.|P\\.E\\.I\\.|Nfld\\.|\\((?:Qu\\xC3\\xA9bec|Quebec|Ontario)\\))"
        let line = "(?:,? |,?\\n)"
        let canada = provinces + line + canadianPostalCode
        let australia = "(?:NSW|VIC|Vic|QLD|Qld|WA|SA|TAS|Tas|NT|ACT) \\d{4}(?![0-9])"
        let us = "(?:[A-Z]{2}(?=,? ?\\n?\\d{5})|" + apStates + "|" + stateNames + "|(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY)(?![A-Za-z0-9]))(?:" + line + zip + ")?"
        return "(?:" + canada + "|" + australia + "|" + ukPostcode + "|" + us + ")"
    }()

    /// The place after a street: a comma, space or line break, the town, then `region`.
    static let place = "(?:,? ?\\n|, ?| )" + city + "(?:,? ?\\n|,? )" + region

    /// A unit after the street, up to three ("Ste. 210", "#4B", "Bldg. 3, Fl. 2", "Suite 100-B"),
    /// on the same line or the next.
    static let unit = "(?:(?:,? |,?\\n)(?:(?:Apt|Apartment|Suite|Ste|Unit|Room|Rm|Flat|Bldg|Building|Fl|Floor|Dept)\\.?|#) ?#?[0-9][0-9A-Za-z]{0,4}(?:-[0-9A-Za-z]{1,3})?(?![A-Za-z0-9])){0,3}"

    /// The street line: house number ("221B", "88-14" in Queens, "305-1120" unit and number in
    /// Canada, "3/118" in Australia), a direction ("N.", "SE"), one to three name words ("Mt.",
    /// "Ft." and "St." among them), a type, then a direction after ("Rd. SW", "St. E"); or
    /// "Broadway" alone; or Welsh, type first ("Heol y Coed").
    static let street: String = {
        let suffix = "(?:(?:" + (streetSuffixes + commonwealthSuffixes).joined(separator: "|") + ")\\b|(?:"
            + streetAbbreviations.joined(separator: "|") + ")(?:\\.|\\b))"
        let nameWord = "(?:(?:Mt|Ft|St|Pt)\\.|" + capitalWord + "|\\d{1,3}(?:st|nd|rd|th))"
        let direction = "(?:(?:[NSEW]|N[EW]|S[EW])\\.? |(?:North|South|East|West) )?"
        let after = "(?: (?:N|S|E|W|NE|NW|SE|SW|O)\\.?(?![A-Za-z0-9]))?"
        let welsh = "(?:Heol|Ffordd|Stryd) (?:[a-z]{1,3} )?" + capitalWord
        return house + " " + direction + "(?:(?:" + nameWord + " ){1,3}" + suffix + after + "|Broadway\\b|" + welsh + ")"
    }()
    static let house = "\\d{1,6}(?:[-/]\\d{1,6})?[A-Za-z]?"

    /// A numbered road in place of a street name ("14302 State Hwy. 21", "3120 County Road 44"):
    /// only with its town, since "Route 66" alone is a song.
    static let highway = house + " (?:(?:State|County|US|U\\.S\\.|Farm to Market|FM|Ranch Road) )?(?:Hwy\\.?|Highway|Road|Route|Rte\\.?|Rd\\.?) \\d{1,4}[A-Z]?" + unit + place

    /// Street, units, then optionally the place; or a numbered road with its place. The region
    /// that must end a place keeps the loose town from matching ordinary prose.
    public static let address: String = "(?:" + highway + "|" + street + unit + "(?:" + place + ")?)"

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

    /// French addresses: number (with "bis" or "ter", a comma after it or not), street type in
    /// lower case (or capitalised, as in Quebec), the name (capitalised words with their
    /// articles, accents as UTF-8 bytes), then optionally the postcode and town ("F-" before it,
    /// "Cedex" after it) or a Canadian town, province and postal code: "12 rue de la Paix, 75002
    /// Paris", "3 bis boulevard Saint-Michel", "4821 rue Saint-Denis, Montréal (Québec) H2J 2L6".
    public static let frenchAddress: String = {
        // A capitalised word: an ASCII or Latin-1 capital (UTF-8 C3 80–9E), then lower-case letters.
        let word = "(?:[A-Z]|\\xC3[\\x80-\\x9E])(?:[a-z']|\\xC3[\\x9F-\\xBF])+"
        let article = "(?:(?:de la|de l'|du|des|de|la|le|les) |d'|l')?"
        let type = "(?:[Rr]ue|[Aa]venue|av\\.|[Bb]oulevard|bd|[Pp]lace|[Aa]ll\\xC3\\xA9e|allee|impasse|[Cc]hemin|quai|route|cours|square|passage|esplanade|promenade|faubourg|rond-point|sentier|voie)"
        let name = article + word + "(?:[ -]" + article + word + "){0,4}"
        return "\\d{1,4}(?: (?:bis|ter))?,? " + type + " " + name + "(?: (?:E|O|Est|Ouest|N|S|Nord|Sud)(?![A-Za-z]))?"
            + "(?:" + frenchPlace + "|" + place + ")?"
    }()
    /// ", 75002 Paris", " 44000 Nantes", " F-59800 Lille", "\n67000 Strasbourg", "33000 Bordeaux Cedex".
    static let frenchPlace = "(?:, ?|,?\\n| )(?:F-)?\\d{5} " + capitalWord + "(?:[ -](?:" + capitalWord + "|la|le|les|sur|en|de))*(?: (?:Cedex|CEDEX)(?: \\d{1,2})?)?"

    /// Addresses that do not start with a digit, found by their own pattern when the text holds
    /// a cue (`hasWordedAddressCue`): post office boxes ("P.O. Box 1187, Tulsa, OK 74101", "GPO
    /// Box 2112, Adelaide SA 5001", "Box 233, Cody, WY 82414" with its town), rural routes ("RR 2,
    /// Box 145", "HC 64 Box 1210", "Star Route Box 9"), a unit or lot before the street ("Apt. 3,
    /// 45 Linden Ave.", "Unit 5/22 Kerr Street", "Lot 12 Bindi Road"), a British house name
    /// ("Rose Cottage, Church Lane, …"), French "BP 214" and "Lieu-dit …", and German streets with
    /// their number ("Lindenstraße 12, 10115 Berlin", "Am Marktplatz 3", "Unter den Linden 5").
    public static let wordedAddresses: [String] = {
        let optionalPlace = "(?:" + place + ")?"
        let line = "(?:,? |,?\\n)"
        let box = "(?:(?:P\\. ?O\\. ?|PO |Post Office |G\\.?P\\.?O\\.? )(?:Box|Drawer)|POB) \\d{1,6}(?![0-9])(?: (?:Stn|Station) [A-Z][a-z]?(?![A-Za-z]))?" + optionalPlace
        let bareBox = "Box \\d{1,6}(?![0-9])" + place
        let rural = "(?:RR|R\\.R\\.|Rural Route|RFD|R\\.F\\.D\\.|HC|Star Route|Route|Rte\\.?)(?: \\d{1,3})?(?:" + line + "(?:Box|Site|Comp) \\d{1,5}[A-Za-z]?(?![A-Za-z0-9])){1,3}" + optionalPlace
        let unitFirst = "(?:(?:Apt|Apartment|Unit|Flat|Suite|Ste)\\.? \\d{1,5}[A-Za-z]?(?:, ?|,?\\n|/| ))" + address
        let suffix = "(?:(?:" + (streetSuffixes + commonwealthSuffixes).joined(separator: "|") + ")\\b|(?:"
            + streetAbbreviations.joined(separator: "|") + ")(?:\\.|\\b))"
        let unnumbered = "(?:" + capitalWord + " ){1,3}" + suffix
        let lot = "Lot \\d{1,5},? " + unnumbered + optionalPlace
        let houseName = "(?:The )?(?:" + capitalWord + " ){0,2}(?:Cottage|House|Farm|Lodge|Barn|Forge|Bakehouse|Manor|Hall|Grange|Rectory|Vicarage|Croft|Villa)" + line
            + "(?:" + address + "|" + unnumbered + place + ")"
        let bp = "(?:BP|B\\.P\\.) \\d{1,5}" + frenchPlace
        let lieuDit = "Lieu-dit (?:(?:Les|La|Le|L') ?)?" + capitalWord + "(?: " + capitalWord + "){0,2}" + frenchPlace
        // German letters: ASCII, or ä ö ü ß é (UTF-8 C3 xx).
        let capital = "(?:[A-Z]|\\xC3[\\x84\\x96\\x9C])"
        let letters = "(?:[a-z]|\\xC3[\\x9F-\\xBF])"
        let types = "(?:stra\\xC3\\x9Fe|strasse|str\\.|weg|gasse|platz|allee|damm|ufer|ring|reihe|chaussee|steig|pfad|markt)"
        let streetWord = capital + letters + "*(?:-" + capital + letters + "*)*-?" + types
        let streetPair = capital + letters + "+(?:e[rns])? (?:Stra\\xC3\\x9Fe|Strasse|Str\\.|Weg|Gasse|Platz|Allee|Damm|Ufer|Ring|Reihe|Chaussee|Markt)"
        let adjective = "(?:(?:Gro\\xC3\\x9F|Gross|Klein|Alt|Neu|Lang|Hoh|Ober|Unter|Hinter|Vorder)e[rns]? )?"
        let preposition = "(?:(?:Am|Im|An der|An den|Auf dem|Auf der|In der|In den|Zum|Zur|Unter den|Hinter der|Vor dem|Bei der) )"
        let street = "(?:" + preposition + "?" + adjective + "(?:" + streetPair + "|" + streetWord + ")|" + preposition + capital + letters + "+)"
        let town = capital + letters + "+(?:[ -](?:am|an der|im|in|bei|ob|vor der|" + capital + letters + "+))*"
        let german = street + " \\d{1,4} ?[a-z]?(?![0-9A-Za-z])(?:(?:, ?|,?\\n| )(?:D-)?\\d{5} " + town + ")?"
        // Three patterns, each under PCRE2's size limit for one compiled pattern (64 KB).
        return [[box, bareBox, rural, lot, bp, lieuDit, german].joined(separator: "|"), unitFirst, houseName]
    }()

    /// Endings of the word before a number that send a text through `wordedAddress` (it is not
    /// run otherwise): "Box 1187", "RR 2", "Apt. 3", "Lindenstraße 12", "Hauptstr. 5", "Kirchweg 4".
    static let wordedAddressCues = ["box", "drawer", "pob", "bp", "b.p.", "rr", "r.r.", "route", "rte", "rte.", "rfd",
                                    "r.f.d.", "hc", "apt", "apt.", "apartment", "unit", "flat", "suite", "ste", "ste.", "lot",
                                    "stra\u{DF}e", "strasse", "str.", "weg", "gasse", "platz", "allee", "damm", "ufer", "ring",
                                    "reihe", "chaussee", "steig", "pfad", "markt"]
    /// House names that, just before a comma, send a text through the house-name pattern of
    /// `wordedAddresses` ("Rose Cottage, Church Lane, …").
    static let houseNames = ["Cottage", "House", "Farm", "Lodge", "Barn", "Forge", "Bakehouse", "Manor", "Hall", "Grange",
                             "Rectory", "Vicarage", "Croft", "Villa"]

    /// A run of digit groups joined by one space, dot, dash or slash (a dash or slash may have a
    /// space either side: "617 – 555 – 0161" once the en dash is read as "-"), or by parentheses, with an
    /// optional leading "+" or "(": every phone, card, SSN and IPv4 layout is one of these, and
    /// the run is taken whole so a rejected number is never re-read as a shorter one. An IPv4
    /// address read out ("10 . 0 . 0 . 42") or defanged ("203.0.113[.]45") is a run too.
    public static let numberRun = "[+(]?\\d+(?:(?: ?[\\-/] ?|[ .]| \\. |\\[\\.\\]|\\)[ .\\-]?|[ .\\-]?\\()\\d+)*"

    /// Candidates that start with a digit, "+" or "(": an address (group 1) or a number run
    /// (group 2), for a peer engine in one pattern. The scrubber itself finds the number runs
    /// (PCRE2 derives a start-byte set and skips everything else fast) and tries
    /// `startingAddresses` anchored at each run's first digit, in this order: one pattern of them
    /// all would pass PCRE2's size limit.
    public static let numeric = "(" + startingAddresses.joined(separator: "|") + ")|(" + numberRun + ")"
    public static let startingAddresses = [address, frenchAddress, lowerCaseAddress + "|" + upperCaseAddress]

    /// An email address, matched anchored at the start of its local part (found by walking back
    /// from an "@"). The local part may hold letters outside ASCII ("zofia.łukasiewicz@…", as
    /// RFC 6531 allows): PCRE2 runs on bytes, so any byte of a multi-byte character is taken. The domain ends in a letters-only top-level label, so a sentence's final
    /// period stays outside.
    public static let email =
        "[A-Za-z0-9._%+\\-\\x{80}-\\x{FF}]+@[A-Za-z0-9](?:[A-Za-z0-9\\-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9\\-]*[A-Za-z0-9])?)*\\.[A-Za-z]{2,24}(?![A-Za-z0-9\\-])"
}
