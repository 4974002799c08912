/// English stop words: the Snowball project's English list, compared after normalisation.
///
/// ```swift
/// StopWords.english.contains("the")     // true
/// StopWords.english.contains("mama")    // false
/// ```
public enum StopWords {
    public static let english: Set<String> = Set("""
        i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
        she her hers herself it its itself they them their theirs themselves what which who whom
        this that these those am is are was were be been being have has had having do does did
        doing would should could ought i'm you're he's she's it's we're they're i've you've we've
        they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't
        aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't
        shouldn't can't cannot couldn't mustn't let's that's who's what's here's there's when's
        where's why's how's a an the and but if or because as until while of at by for with about
        against between into through during before after above below to from up down in out on
        off over under again further then once here there when where why how all any both each
        few more most other some such no nor not only own same so than too very
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))

    /// Function words of Spanish, French, German, Polish, Portuguese, Italian, Russian and
    /// Arabic, after the same normalisation (folded, so "qué" is "que" and "się" is "sie").
    /// Words that are also English content words are left out, so an English question keeps
    /// them: German "die", "war", "hat", "den", Spanish "son", "era", "hay", "sin", "al",
    /// Polish "ten", "pod", French "son".
    public static let other: Set<String> = {
        let words = """
            el los las lo un una unos unas del y o pero que quien como cuando donde por para con de en es fue fueron
            ser estar estaba estaban esta mi mis tu tus su sus nuestro nuestra se te nos le les ya muy mas tambien
            porque pues si este estos estas ese esa eso aquel habia todo todos toda todas yo ella ellos ellas usted
            ustedes la cual cuales cuanto cuanta cuantos cuantas pourquoi combien quel quelle quels quelles wohin
            woher warum wer wen wem wann welche welcher welches wieviel ihre ihrer ihren ihrem seiner seinen seinem
            meiner meinen meinem deine deiner gdzie kiedy dlaczego ile kto kogo czym jaki jaka jakie ktory ktora
            ktore kiedys zawsze nigdy alguna algun vez nunca siempre jamais toujours deja jemals immer أين متى لماذا كيف كم ماذا هل le des du et ou mais qui quoi dont est etait etaient etre avoir avait
            ont ce cet cette ces mon mes ton ta tes sa ses notre nos votre vos leur leurs je il elle nous vous ils
            elles ne pas plus dans pour avec sur au aux chez comme quand aussi tres tout tous toute toutes der das
            dem des ein eine einen einem einer und oder aber ich du er sie wir ihr ist waren sind hatte haben mit
            von zu im auf fur nicht auch noch wie wenn dann bei nach aus um wo mein meine dein sein seine unser uns
            mich mir dich dir sich ja nein sehr schon nur vom zum zur wurde i w z na ze sie nie jak co od po ja ty
            ona my wy oni byl byla bylo byli jest sa moj moja moje mnie mi jej ich tak juz tylko bardzo tez czy
            przez dla za przy ta te tego tej tym os as um uma da dos das em na nas nao com foi ao seu sua ele eles
            il gli della delle dei degli nel nella che di e non per sono anche и в не на я что с он как а то все она
            так его но да ты к у же вы за бы по только ее мне было от меня еще нет о из ему когда даже ну ли если
            уже или ни быть был него до вас там потом себя ей может они тут где есть для мы тебя их чем была сам без
            чего тоже себе под будет тогда кто этот того потому этого какой мой тем чтобы были при об после над
            через эти нас про всего них эту моя этой перед такой им между في من على إلى الى عن أن ان إن كان كانت هذا
            هذه ذلك التي الذي و ما لا لم لن قد هو هي هم نحن أنا انا كل مع بعد قبل عند ثم أو او بين حتى كنا كنت
            """
        return Set(words.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { TermNormalizer.normalize(ArraySlice($0.unicodeScalars)) })
    }()

    /// Chinese particles and the like: characters that are grammar rather than content
    /// ("的", "了", "吗"). A character pair holding one is not an index term.
    public static func isParticle(_ scalar: Unicode.Scalar) -> Bool {
        particles.contains(scalar)
    }

    static let particles: Set<Unicode.Scalar> = Set("的了吗呢吧啊呀么之也".unicodeScalars)
}
