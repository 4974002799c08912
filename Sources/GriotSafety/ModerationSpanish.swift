/// Spanish crisis and threat phrases, read on the same normalised tokens (accents folded:
/// "daño" is "dano"). Present-tense, first- or second-person wording only, so a grandmother's
/// "los soldados mataron a su padre" and "matar el tiempo" stay allowed. Other languages have
/// no phrase rules: the semantic layer's multilingual-ish word pieces and the remote moderator
/// (`GRIOT_MODERATION_URL`) are what reads them.
enum ModerationSpanish {
    static let crisis: [[String]] = [
        ["quiero", "matarme"], ["voy", "a", "matarme"], ["suicidarme"], ["me", "quiero", "suicidar"], ["me", "voy", "a", "suicidar"],
        ["quitarme", "la", "vida"], ["me", "voy", "a", "quitar", "la", "vida"], ["me", "quiero", "quitar", "la", "vida"], ["me", "voy", "a", "matar"], ["me", "quiero", "matar"], ["quiero", "morir"], ["quiero", "morirme"], ["me", "quiero", "morir"],
        ["no", "quiero", "seguir", "viviendo"], ["no", "quiero", "vivir"], ["no", "quiero", "seguir", "vivo"],
        ["tomo", "todas", "las", "pastillas"], ["tomarme", "todas"], ["tomar", "todas", "las", "pastillas"],
        ["guardando", "las", "pastillas"], ["guardando", "pastillas"], ["me", "corto"], ["cortarme"], ["me", "hago", "dano"], ["hacerme", "dano"],
        ["mi", "despedida"], ["nadie", "me", "va", "a", "extranar"], ["nadie", "me", "extranara"], ["cuando", "me", "muera"],
        ["me", "voy", "a", "tirar"], ["tirarme", "del"], ["tirarme", "de"], ["cartas", "de", "despedida"],
        ["no", "le", "veo", "sentido", "a", "la", "vida"], ["sin", "sentido", "vivir"], ["no", "aguanto", "mas"],
    ]
    static let violentVerbs: Set<String> = ["matar", "golpear", "pegar", "romper", "partir", "apunalar", "disparar", "quemar", "ahorcar", "destrozar", "reventar", "acuchillar", "lastimar"]
    static let threats: [[String]] = [
        ["se", "donde", "vives"], ["se", "donde", "trabajas"], ["se", "donde", "estudian"], ["se", "donde", "estudia"], ["se", "donde", "viven"],
        ["te", "estoy", "vigilando"], ["vas", "a", "pagar"], ["te", "vas", "a", "arrepentir"], ["romper", "la", "cara"], ["partir", "la", "cara"],
        // Issue 35: a wish for the reader's death, coming for them, knowing their hours.
        ["ojala", "te", "mueras"], ["que", "te", "mueras"], ["voy", "a", "ir", "por", "ti"], ["ire", "por", "ti"], ["a", "que", "hora", "sales"],
        ["te", "estare", "esperando"], ["cuida", "a", "tus", "hijos"], ["dar", "una", "paliza"], ["hijo", "de", "puta"],
        // Second round: waiting with a weapon, a child who will not come home, "you are dead".
        ["voy", "a", "esperarte"], ["te", "voy", "a", "esperar"], ["te", "voy", "a", "buscar"], ["voy", "a", "buscarte"], ["te", "voy", "a", "encontrar"], ["te", "encontrare"],
        ["con", "un", "cuchillo"], ["con", "una", "pistola"], ["con", "un", "arma"], ["no", "va", "a", "volver"], ["no", "van", "a", "volver"], ["si", "no", "te", "callas"],
        ["vas", "a", "morir"], ["te", "vas", "a", "morir"], ["estas", "muerto"], ["estas", "muerta"], ["hombre", "muerto"], ["mujer", "muerta"], ["te", "mato"], ["te", "matare"],
        ["sabemos", "donde", "vives"], ["cuidate", "la", "espalda"], ["con", "quien", "te", "metes"], ["te", "arrepentiras"], ["lo", "vas", "a", "lamentar"], ["lo", "vas", "a", "pagar"],
        ["te", "va", "a", "pasar", "algo"], ["le", "va", "a", "pasar", "algo"], ["les", "puede", "pasar", "algo"], ["te", "puede", "pasar", "algo"], ["tus", "dias", "estan", "contados"],
        ["se", "que", "dia"], ["se", "a", "que", "hora"], ["se", "cuando", "sales"], ["se", "por", "donde", "pasas"], ["te", "rajo"], ["te", "parto"], ["va", "a", "sufrir"], ["vas", "a", "sufrir"],
    ]
    /// "te vamos a quemar", "matarte": the future with "vamos", and a violent verb with "te" joined.
    static let violentVerbsAtYou: Set<String> = ["matarte", "golpearte", "pegarte", "romperte", "partirte", "apunalarte", "dispararte", "quemarte", "ahorcarte",
                                                 "destrozarte", "reventarte", "acuchillarte", "lastimarte", "rajarte", "colgarte", "enterrarte"]
    /// Groups named in the plural ("los inmigrantes", "los judíos"), accents folded.
    static let groups: Set<String> = ["inmigrantes", "negros", "judios", "moros", "gitanos", "maricones", "musulmanes", "mujeres", "indios", "gays", "refugiados",
                                       "extranjeros", "latinos", "chinos", "arabes", "homosexuales", "sudacas", "negras", "lesbianas", "migrantes", "africanos",
                                       "gente", "pobres", "trans", "indigenas", "mexicanos", "venezolanos", "colombianos", "peruanos", "bolivianos", "ecuatorianos",
                                       "dominicanos", "haitianos", "cubanos", "asiaticos", "judias", "musulmanas", "ateos", "cristianos", "catolicos", "evangelicos",
                                       "discapacitados", "ancianos", "viejos", "gordos", "mendigos", "vagabundos", "indocumentados", "ilegales", "rumanos", "marroquies", "gentuza"]
    /// What a group is called to take away its people's worth: animals, vermin, rubbish.
    static let dehumanising: Set<String> = ["ratas", "plaga", "escoria", "basura", "animales", "monos", "parasitos", "cucarachas", "bestias", "inferiores", "alimanas",
                                             "gusanos", "salvajes"]
    /// Ridding the country of a group: said after "hay que" or "deberían".
    static let removal: Set<String> = ["exterminarlos", "exterminarlas", "eliminarlos", "eliminarlas", "echarlos", "echarlas", "matarlos", "matarlas", "morir",
                                        "deportarlos", "quemarlos", "colgarlos", "desaparecer", "exterminar", "eliminar", "echar", "matar", "muertos", "muertas", "acabar", "limpiarlos", "limpiarlas", "sacarlos", "sacarlas"]
    static let insults: Set<String> = ["inutil", "idiota", "imbecil", "imbecile", "basura", "estupido", "estupida", "asco", "cobarde", "porqueria", "cabron", "pendejo", "gilipollas", "mierda", "perra", "puta", "zorra", "gusano", "asqueroso", "asquerosa"]

    /// Scores for the Spanish phrases found; zero when none is.
    static func reading(_ text: ModerationText) -> ModerationResult {
        var result = ModerationResult()
        let words = text.tokens.filter { !$0.isPunctuation && !$0.quoted }.map(\.text)
        guard !words.isEmpty else { return result }
        let contains = words.containsPhrase
        // "mañana me mato"; "me mato trabajando" (I work myself to death) is an idiom.
        let killsSelf = words.indices.contains { words[$0] == "me" && $0 + 1 < words.count && words[$0 + 1] == "mato"
            && ($0 + 2 == words.count || !(words[$0 + 2].hasSuffix("ando") || words[$0 + 2].hasSuffix("iendo"))) }
        if killsSelf || crisis.contains(where: contains) {
            result.selfHarm = 0.9
            result.reasons.append("self-harm: first-person intent or act (Spanish)")
        }
        // "voy a matar…", "te voy a golpear…": a first-person future with a violent verb.
        let futureHarm = words.indices.contains { index in
            ["voy", "vamos"].contains(words[index]) && index + 2 < words.count && words[index + 1] == "a" && violentVerbs.contains(words[index + 2])
        } || words.contains(where: violentVerbsAtYou.contains) && words.contains { ["voy", "vamos", "quiero", "pienso", "ire"].contains($0) }
        if futureHarm || threats.contains(where: contains) {
            result.violence = 0.9
            result.harassment = max(result.harassment, 0.85)
            result.reasons.append("threat of violence (Spanish)")
        }
        // "Los gitanos son basura", "los judíos son una plaga que hay que eliminar": a group said
        // to be vermin or to be got rid of; "los nazis querían exterminar a los judíos" names no
        // such predicate ("son", "deberían", "hay que").
        for sentence in text.unquotedSentences where sentence.contains(where: groups.contains) {
            let predicates = sentence.contains("son") || sentence.contains("es") || sentence.contains("valen") || sentence.contains("deberian") || sentence.containsPhrase(["hay", "que"]) || sentence.contains("merecen")
                || sentence.containsPhrase(["no", "merecen", "vivir"]) || sentence.containsPhrase(["merecen", "morir"])
            let worthless = sentence.contains(where: dehumanising.contains) || sentence.containsPhrase(["no", "son", "personas"])
                || sentence.containsPhrase(["no", "es", "humana"]) || sentence.containsPhrase(["no", "son", "humanos"]) || sentence.containsPhrase(["no", "valen", "nada"])
            let removed = (sentence.containsPhrase(["hay", "que"]) || sentence.contains("deberian")) && sentence.contains(where: removal.contains)
                || sentence.containsPhrase(["no", "merecen", "vivir"]) || sentence.containsPhrase(["merecen", "morir"])
            if predicates && (worthless || removed) || sentence.containsPhrase(["no", "merecen", "derechos"]) {
                result.hate = max(result.hate, 0.9)
                result.reasons.append("dehumanising a group (Spanish)")
                break
            }
        }
        // "cállate" reaches here as "callate" or, split as two glued English words, "call ate";
        // "imbécil" may come back repaired to the English "imbecile".
        // "te" addresses the reader too, but "qué asco de día, te lo juro" is no insult: with "te"
        // alone the insult must name a person.
        let addressed = words.contains { ["eres", "callate", "maldito", "maldita", "tu"].contains($0) } || contains(["call", "ate"])
        let addressedByObject = words.contains("te") && words.contains { insults.contains($0) && !["mierda", "asco", "porqueria"].contains($0) }
        if addressed || addressedByObject, words.contains(where: insults.contains) {
            result.harassment = max(result.harassment, 0.85)
            result.reasons.append("insult aimed at the reader (Spanish)")
        }
        return result
    }
}
