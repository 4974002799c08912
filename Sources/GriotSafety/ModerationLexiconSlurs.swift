/// The slur lexicon. Every entry is ROT13-encoded so that the repository, its diffs and its
/// reviews never display a slur in plain text; the moderator decodes the list once, on first
/// use, into `ModerationLexicon`. Two-word slurs are stored glued; `ModerationText` glues a
/// pair of words when the pair is one. Reasons name the group a slur targets, never the word.
enum ModerationLexiconSlurs {
    enum Kind {
        /// Derogatory wherever it is used (outside quotation, report and counter-speech).
        case strong
        /// Only derogatory in an insulting frame ("you are just a …", "typical …", "too many …").
        case frame
        /// As `frame`, and also reclaimed by the group it names ("my …", "I'm a proud …").
        case reclaimable
    }

    /// (ROT13 of the word, the group it targets, its kind, the homonym context that makes it not a slur).
    static let encoded: [(String, String, Kind, String)] = [
        ("avttre", "black people", .strong, ""),
        ("avttref", "black people", .strong, ""),
        ("avttn", "black people", .reclaimable, ""),
        ("avttnf", "black people", .reclaimable, ""),
        ("avttnm", "black people", .reclaimable, ""),
        ("pbba", "black people", .strong, "animal"),
        ("pbbaf", "black people", .strong, "animal"),
        ("wvtnobb", "black people", .strong, ""),
        ("wvtnobbf", "black people", .strong, ""),
        ("qnexvr", "black people", .strong, ""),
        ("qnexvrf", "black people", .strong, ""),
        ("fnzob", "black people", .strong, ""),
        ("fnzobf", "black people", .strong, ""),
        ("xvxr", "Jewish people", .strong, ""),
        ("xvxrf", "Jewish people", .strong, ""),
        ("lvq", "Jewish people", .strong, ""),
        ("lvqf", "Jewish people", .strong, ""),
        ("fcvp", "Latino people", .strong, ""),
        ("fcvpf", "Latino people", .strong, ""),
        ("jrgonpx", "Latino people", .strong, ""),
        ("jrgonpxf", "Latino people", .strong, ""),
        ("ornare", "Latino people", .strong, ""),
        ("ornaref", "Latino people", .strong, ""),
        ("puvax", "Asian people", .strong, ""),
        ("puvaxf", "Asian people", .strong, ""),
        ("tbbx", "Asian people", .strong, ""),
        ("tbbxf", "Asian people", .strong, ""),
        ("enturnq", "Muslims", .strong, ""),
        ("enturnqf", "Muslims", .strong, ""),
        ("gbjryurnq", "Muslims", .strong, ""),
        ("gbjryurnqf", "Muslims", .strong, ""),
        ("fnaqavttre", "Muslims", .strong, ""),
        ("fnaqavttref", "Muslims", .strong, ""),
        ("zhmmvr", "Muslims", .strong, ""),
        ("zhmmvrf", "Muslims", .strong, ""),
        ("wvunqv", "Muslims", .strong, ""),
        ("wvunqvf", "Muslims", .strong, ""),
        ("zbfyrz", "Muslims", .strong, ""),
        ("cnxv", "South Asian people", .strong, ""),
        ("cnxvf", "South Asian people", .strong, ""),
        ("pnzryshpxre", "Arab and Muslim people", .strong, ""),
        ("pnzryshpxref", "Arab and Muslim people", .strong, ""),
        ("pnzrywbpxrl", "Arab and Muslim people", .strong, ""),
        ("pnzrywbpxrlf", "Arab and Muslim people", .strong, ""),
        ("encrshtrr", "immigrants", .strong, ""),
        ("encrshtrrf", "immigrants", .strong, ""),
        ("snttbg", "gay people", .reclaimable, "food"),
        ("snttbgf", "gay people", .reclaimable, "food"),
        ("snt", "gay people", .reclaimable, "cigarette"),
        ("sntf", "gay people", .reclaimable, "cigarette"),
        ("snttl", "gay people", .reclaimable, "cigarette"),
        ("qlxr", "lesbians", .reclaimable, "embankment"),
        ("qlxrf", "lesbians", .reclaimable, "embankment"),
        ("dhrre", "gay people", .reclaimable, "odd"),
        ("dhrref", "gay people", .reclaimable, "odd"),
        ("ubzb", "gay people", .frame, ""),
        ("ubzbf", "gay people", .frame, ""),
        ("genaal", "trans people", .strong, ""),
        ("genaavrf", "trans people", .strong, ""),
        ("genaalf", "trans people", .strong, ""),
        ("furznyr", "trans people", .strong, ""),
        ("furznyrf", "trans people", .strong, ""),
        ("ynqlobl", "trans people", .strong, ""),
        ("ynqloblf", "trans people", .strong, ""),
        ("ergneq", "disabled people", .strong, ""),
        ("ergneqf", "disabled people", .strong, ""),
        ("ergneqrq", "disabled people", .strong, ""),
        ("zbat", "disabled people", .strong, ""),
        ("zbatf", "disabled people", .strong, ""),
        ("fcnfgvp", "disabled people", .strong, ""),
        ("fcnfgvpf", "disabled people", .strong, ""),
        ("fcnm", "disabled people", .strong, ""),
        ("fcnmm", "disabled people", .strong, ""),
        ("pevccyr", "disabled people", .frame, ""),
        ("pevccyrf", "disabled people", .frame, ""),
        ("juber", "women", .reclaimable, ""),
        ("juberf", "women", .reclaimable, ""),
        ("fyhg", "women", .reclaimable, ""),
        ("fyhgf", "women", .reclaimable, ""),
        ("fxnax", "women", .reclaimable, ""),
        ("fxnaxf", "women", .reclaimable, ""),
        ("phag", "women", .reclaimable, ""),
        ("phagf", "women", .reclaimable, ""),
        ("ovgpu", "women", .reclaimable, "dog"),
        ("ovgpurf", "women", .reclaimable, "dog"),
        ("ubr", "women", .reclaimable, "garden"),
        ("ubrf", "women", .reclaimable, "garden"),
        ("srzvanmv", "women", .frame, ""),
        ("srzvanmvf", "women", .frame, ""),
    ]

    static func rot13(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            switch scalar {
            case "a"..."m", "A"..."M": Unicode.Scalar(scalar.value + 13)!
            case "n"..."z", "N"..."Z": Unicode.Scalar(scalar.value - 13)!
            default: scalar
            }
        }))
    }
}
