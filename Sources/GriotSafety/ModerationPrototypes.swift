/// The semantic layer's prototype statements: short, generic sentences of each kind of harm,
/// written for this bank (not taken from any evaluation file). Tuned on
/// `evals/moderation/tuning.jsonl` and `cases.jsonl`; the held-out files never shaped them.
public enum ModerationPrototypes {
    public static let all: [(ModerationSemantics.Kind, String)] =
        selfHarm.map { (.selfHarm, $0) } + threats.map { (.threat, $0) } + dehumanising.map { (.dehumanising, $0) } + insults.map { (.insult, $0) }

    /// Intent, method, plan, farewell, ongoing self-injury, euphemisms; English and Spanish.
    static let selfHarm = [
        // Intent
        "I want to kill myself", "I am going to end my life", "I want to die", "I do not want to live anymore",
        "I wish I were dead", "I am ready to die", "I want my life to be over",
        // Method and fatal-dose questions
        "how many pills does it take to die", "what dose of medicine is lethal", "how much medication is a fatal overdose",
        "I am going to take all my pills", "I have saved up pills to overdose", "I will hang myself", "I will jump from the bridge",
        "I stopped taking my insulin so I will die", "I am not taking my medication so my body gives out",
        // Plan and time
        "tonight is the night I end it", "I have chosen the day I will die", "I have everything ready to end my life",
        // Farewell and giving away
        "this is my goodbye letter to everyone", "I am giving away my things because I will not need them",
        "please look after my pet when I am gone", "tell my family I love them, I will not be here tomorrow",
        // Ongoing self-injury
        "I cut myself again last night", "I keep burning my skin to feel better", "I hurt myself on purpose every night",
        // Loss and worthlessness
        "since she died there is no point in living", "life is not worth living anymore", "everyone would be better off without me",
        // Euphemisms
        "kms", "unalive myself", "sewerslide", "ctb tonight",
        // Spanish
        "quiero matarme", "me quiero morir", "voy a quitarme la vida", "quiero suicidarme", "me voy a tomar todas las pastillas",
        "me corto los brazos", "ya no quiero vivir", "esta es mi despedida",
    ]

    /// Threats of harm to any person: the reader, a named third person, their family; veiled ones.
    static let threats = [
        "I am going to kill you", "I will beat him until he can not walk", "I will stab her", "I am going to shoot them",
        "I will break your legs", "I will burn down your house", "someone should kill that man", "I will make you bleed",
        "I know where you live", "I know where your kids go to school", "I am watching you", "see you soon, you will regret it",
        "it would be a shame if something happened to your family", "people like you have accidents", "you will not see it coming",
        "your family will pay", "I am bringing a gun to work", "sleep with one eye open",
        "te voy a matar", "sé dónde vives", "te voy a romper la cara", "voy a golpearlo",
    ]

    /// Dehumanising a person or a group: animals, vermin, disease, less than human.
    static let dehumanising = [
        "you are an animal who belongs in a cage", "you are vermin", "you are a parasite", "you are subhuman",
        "she is a filthy rat", "he is a cockroach", "you are not even human", "you are garbage", "you are a waste of oxygen",
        "eres una basura", "eres un animal",
    ]

    /// Targeted insults: contempt aimed at the reader or a named person.
    static let insults = [
        "you are a worthless idiot", "you are pathetic", "you are stupid and useless", "shut up you moron",
        "you are a disgusting loser", "nobody likes you, you idiot", "you are the dumbest person alive",
        "eres un inútil", "eres un imbécil", "cállate idiota",
    ]
}
