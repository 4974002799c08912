/// What a word can signal to the moderator. A word may carry several cues ("sick" is both a
/// negative feeling and an insult).
struct ModerationCue: OptionSet, Sendable, Hashable {
    let rawValue: UInt32
    /// A protected group named by a noun: "women", "immigrants", "Muslims".
    static let groupNoun = ModerationCue(rawValue: 1 << 0)
    /// A protected group named by an adjective that needs a person after it: "black", "gay".
    static let groupAdjective = ModerationCue(rawValue: 1 << 1)
    /// A word for people that a group adjective can modify: "people", "person", "lives".
    static let personNoun = ModerationCue(rawValue: 1 << 2)
    /// A feeling against someone: "hate", "despise", "contempt".
    static let negativeFeeling = ModerationCue(rawValue: 1 << 3)
    /// A derogatory attribute: "disgusting", "stupid", "violent".
    static let negativeAttribute = ModerationCue(rawValue: 1 << 4)
    /// A dehumanising noun: "vermin", "parasites", "subhuman".
    static let dehumanising = ModerationCue(rawValue: 1 << 5)
    /// An animal or object people are compared with: "rat", "dog", "dirt".
    static let comparedThing = ModerationCue(rawValue: 1 << 6)
    /// A violent act: "kill", "shoot", "hang".
    static let violentAct = ModerationCue(rawValue: 1 << 7)
    /// A word of intent, wish or obligation that makes a violent act a threat: "will", "should".
    static let intent = ModerationCue(rawValue: 1 << 8)
    /// A value or good quality whose negation derogates: "human", "worth", "belong".
    static let positive = ModerationCue(rawValue: 1 << 9)
    static let negator = ModerationCue(rawValue: 1 << 10)
    /// Swearing: says nothing about a target by itself ("fucking hell, what a day").
    static let profanity = ModerationCue(rawValue: 1 << 11)
    /// An insult for a person: "idiot", "scumbag".
    static let insult = ModerationCue(rawValue: 1 << 12)
    /// A verb or noun that reports someone else's words: "saying", "calling", "comments".
    static let report = ModerationCue(rawValue: 1 << 13)
    /// Disapproval of what was said: "bigot", "hurtful", "jail".
    static let condemnation = ModerationCue(rawValue: 1 << 14)
    /// Excluding or segregating a group: "deport", "zoo", "cages".
    static let exclusion = ModerationCue(rawValue: 1 << 15)
    /// Ends the reach of a negation: "but", "that", "while".
    static let clauseBreak = ModerationCue(rawValue: 1 << 16)
    /// Sexual content.
    static let sexual = ModerationCue(rawValue: 1 << 17)
    /// A child or minor.
    static let minor = ModerationCue(rawValue: 1 << 18)
    /// A past-tense verb of narration: "was", "were", "burned".
    static let past = ModerationCue(rawValue: 1 << 19)
    /// A group that is not protected but is often named in complaints: "politicians", "waiters".
    static let otherGroup = ModerationCue(rawValue: 1 << 20)
}

/// The word lists of the local moderator, and the repairs that map a misspelt, glued or
/// stretched word back to a list entry.
struct ModerationLexicon: Sendable {
    static let shared = ModerationLexicon()

    struct Slur: Sendable {
        var group: String
        var kind: ModerationLexiconSlurs.Kind
        var homonymContext: String
    }

    private(set) var cues: [String: ModerationCue] = [:]
    private(set) var slurs: [String: Slur] = [:]
    /// Words with doubled letters shortened ("kil"), mapped to the word ("kill").
    private var squeezed: [String: String] = [:]
    /// Words with one letter dropped or two neighbours swapped, mapped to the word.
    private var misspelt: [String: String] = [:]
    /// Words any reader knows: the lexicon's, the function words, and real words that a
    /// repair would otherwise turn into a lexicon word ("rash" is not "trash").
    private(set) var known: Set<String> = []
    /// Known words with every doubled letter made single ("wil" for "will"), mapped to the word:
    /// "wwant", "aall" and "deeaad" read as written, letters doubled to slip past the lists.
    private var undoubledKnown: [String: String] = [:]

    private init() {
        func add(_ cue: ModerationCue, _ words: String) {
            for word in words.split(separator: " ") { cues[String(word), default: []].insert(cue) }
        }
        add(.groupNoun, """
            women woman womenfolk females girls muslims muslim moslems islamists immigrants immigrant migrants migrant refugees \
            refugee foreigners gays lesbians lesbian bisexuals homosexuals homosexual transgenders transwomen transmen \
            blacks negroes jews jew hispanics latinos latinas mexicans arabs asians gypsies roma disabled handicapped \
            africans chinese indians pakistanis somalis asylum seekers christians hindus sikhs buddhists catholics \
            protestants mormons natives elderly pensioners illegals koreans filipinos haitians syrians afghans nigerians \
            jamaicans palestinians
            """)
        add(.groupAdjective, """
            black gay trans transgender lesbian bisexual disabled handicapped muslim jewish female immigrant \
            migrant asian hispanic latino latina mexican arab african chinese indian foreign white colored coloured \
            negro islamic catholic romani autistic deaf blind native indigenous aboriginal elderly christian hindu sikh \
            buddhist mormon japanese korean vietnamese filipino haitian syrian afghan nigerian jamaican somali pakistani
            """)
        add(.personNoun, """
            people person persons folks folk men man women woman guys guy kids kid children child boys boy girls girl \
            lives life family families community neighbours neighbors students student colleague colleagues kind scum \
            trash vermin filth throats throat neck necks president presidents authors author workers worker doctors \
            nurses teachers americans americas citizens members member population populations
            """)
        add(.negativeFeeling, """
            hate hates hating hatred loathe loathing despise despising detest detesting abhor abhorrent disdain contempt \
            scorn disgust disgusts disgusted sick sickens rage furious angry anger boil resent resentment revulsion \
            worst worse pissed pissing piss annoy annoying
            """)
        add(.negativeAttribute, """
            disgusting repulsive despicable sickening revolting repugnant dishonest vile pathetic threat danger dangerous \
            uncivilised uncivilized violent cruel ignorant filthy stupid stupidest dumb dumbest brainless idiots idiotic \
            lazy criminals criminal evil dirty smelly greedy inferior worthless useless primitive savage savages \
            barbaric backward thieves liars mistake ruin ruins destroy destroying invading invaders invasion \
            moronic degenerate degenerates perverts perverted freaks freak mentally unnatural abomination \
            ugly gross nasty incompetent untrustworthy disease diseased rapists terrorists terrorist freeloaders \
            scroungers spongers moochers defective unfit ruining
            """)
        add(.dehumanising, """
            scum dirt filth trash refuse parasites parasite cockroaches cockroach garbage subhuman subhumans pest pests \
            rats rat vermin virus cancer plague swarms swarm infesting infest infestation creatures animals animal \
            beasts beast apes ape monkeys monkey insects insect rodents leeches leech waste lesser monsters \
            zoo cages cage vet landfill livestock breed breeding dogs blight scourge tumour tumor locusts termites \
            bloodsuckers pestilence
            """)
        add(.comparedThing, """
            dog dogs rat rats monkey monkeys insect insects animals animal dirt shoe cockroach pig pigs ape apes \
            cancer plague disease
            """)
        add(.violentAct, """
            kill killed killing kills murder murdered murdering murders shoot shot shooting stab stabbed stabbing \
            rape raped raping hurt hurting attack attacked attacking torture tortured torturing execute executed \
            execution exterminate exterminated extermination eradicate eradicated eradicating slaughter slaughtered \
            hang hanged hung drown drowned strangle strangled burn burned burnt lynch lynched lynching gas gassed \
            beat beaten bomb bombed punch punched behead beheaded butcher butchered massacre die dead death suffer \
            suffering cut snap deport deported wipe genocide annihilate purge exterminating
            """)
        add(.intent, """
            want wanna will would going gonna let lets should ought deserve deserves deserved must need needs wish \
            hope love gotta shall time solution only
            """)
        add(.positive, """
            love like adore respect compassion attractive intelligent smart clever equal equals worthy worth value \
            valuable matter matters important human humans humane live living alive belong belongs deserve deserves \
            rights right save protect protecting space place room stand trust welcome good decent beings members member \
            care kind nice beautiful
            """)
        add(.negator, "not no never nobody none neither nor without cannot nothing opposite")
        add(.profanity, """
            fuck fucks fucking fucked fucker fuckers motherfucker motherfuckers fuk fuckin shit shits shitty shite \
            bullshit shithead shitheads piss pissed pissing asshole assholes bastard bastards scumbag scumbags prick \
            pricks dickhead dickheads dick dumbass dumbasses damn goddamn crap crappy wtf stfu bloody arse arsehole
            """)
        add(.insult, """
            idiot idiots moron morons loser losers asshole assholes bastard bastards scumbag scumbags prick pricks \
            dickhead dickheads dumbass dumbasses motherfucker motherfuckers shithead shitheads fucker fuckers jerk \
            jerks pathetic worthless useless stupid dumb ugly scum trash garbage filth pest rat vermin cancer \
            disgusting repulsive repugnant vile brainless freak creep loser imbecile cretin
            """)
        add(.report, """
            say says said saying call calls called calling write writes wrote writing written tell tells told telling \
            claim claims claimed claiming believe believes threatening threaten threatens threats wishing statements statement comments \
            comment posts post messages message remarks remark words stuff things treats treated treating shouting \
            shouted yelled yelling chanting chanted insults insulted slurs slur warned warning
            """)
        add(.condemnation, """
            bigot bigots bigoted bigotry hateful misguided horrible hurtful dehumanising dehumanizing racist racism \
            sexist sexism homophobic homophobia transphobic ableist xenophobic jail prison court consequences report \
            reported banned ban blocked tolerate unacceptable disheartening hurts wrong ashamed shame sad shows \
            small-minded respect okay ok condemn condemned appalling awful disgraceful prejudice discrimination \
            illegal crime
            """)
        add(.exclusion, """
            deport deported deportation zoo cages cage vet landfill locked expel expelled ban banned segregate \
            sterilise sterilize sterilised
            """)
        add(.clauseBreak, """
            but that while because though although however yet whereas which who if when whenever unless
            """)
        add(.sexual, """
            sex sexual sexy nude nudes naked porn porno pornography horny orgasm masturbate masturbating blowjob \
            genitals penis vagina boobs tits dick cock pussy erotic xxx nsfw fetish stripper hooker
            """)
        add(.minor, """
            child children kid kids minor minors underage teen teens teenager boy boys girl girls preteen toddler \
            schoolgirl schoolboy daughter son student students baby
            """)
        add(.past, """
            was were had did said called burned burnt lynched killed hanged beat beaten shot marched remember \
            remembered used told grew lived ago back then years warned
            """)
        add(.otherGroup, """
            politicians waiters athletes consultants police cops bakers bankers managers lawyers doctors artists fans \
            economists lobbyists cyclists vegetarians pilots landlords capitalists communists liberals conservatives \
            centrists moderates scientists academics protesters gardeners thieves nazis racists sexists bigots \
            homophobes rapists executives
            """)

        for (encoded, group, kind, context) in ModerationLexiconSlurs.encoded {
            slurs[ModerationLexiconSlurs.rot13(encoded)] = Slur(group: group, kind: kind, homonymContext: context)
        }

        known = Set(cues.keys).union(slurs.keys).union(Self.functionWords).union(ModerationLexiconKnownWords.words)
        // Spanish group nouns and what they are called ("moros", "escoria") are words, not English ones misspelt.
        known.formUnion(ModerationSpanish.groups.union(ModerationSpanish.dehumanising).union(ModerationSpanish.removal))
        let repairable = Set(cues.keys).union(slurs.keys).filter { $0.count >= 4 }
        // Lexicon words first, so "kil" is "kill" before any other known word.
        for word in Set(cues.keys).union(slurs.keys).sorted() + known.sorted() where word.count >= 2 {
            let short = Self.undouble(word)
            if undoubledKnown[short] == nil { undoubledKnown[short] = word }
        }
        for word in Set(cues.keys).union(slurs.keys) {
            let short = Self.undouble(word)
            if short != word, !known.contains(short) { squeezed[short] = word }
        }
        for word in repairable.sorted() {
            let letters = Array(word)
            for drop in letters.indices {
                var variant = letters
                variant.remove(at: drop)
                let spelt = String(variant)
                if spelt.count >= 4, !known.contains(spelt), misspelt[spelt] == nil { misspelt[spelt] = word }
            }
            for swap in letters.indices.dropLast() where letters[swap] != letters[swap + 1] {
                var variant = letters
                variant.swapAt(swap, swap + 1)
                let spelt = String(variant)
                if !known.contains(spelt), misspelt[spelt] == nil { misspelt[spelt] = word }
            }
        }
        // Short group adjectives lose a letter before "people" ("gy people"); `repaired` only
        // sees one word, so the scorer asks for these by name.
        for word in ["gay", "black", "trans", "jewish", "muslim", "female", "disabled", "asian", "arab"] {
            let letters = Array(word)
            for drop in letters.indices {
                var variant = letters
                variant.remove(at: drop)
                let spelt = String(variant)
                if !known.contains(spelt) || spelt.count <= 2 { adjectiveRepairs[spelt] = word }
            }
        }
    }

    /// Misspelt group adjectives, trusted only right before a person noun.
    private(set) var adjectiveRepairs: [String: String] = [:]

    func cue(_ word: String) -> ModerationCue { cues[word] ?? [] }
    func has(_ word: String, _ cue: ModerationCue) -> Bool { cues[word]?.contains(cue) ?? false }

    /// The word as the lists know it: itself when known, otherwise repaired ("kiil" as "kill",
    /// "hatrd" as "hatred"), or split in two when it is two known words glued ("ihate").
    func repaired(_ word: String) -> [String] {
        if known.contains(word) || word.count < 3 || word.unicodeScalars.first.map({ ("0"..."9").contains($0) }) == true {
            return [word]
        }
        if let whole = squeezed[Self.undouble(word)] { return [whole] }
        let single = Self.undouble(word)
        if single != word, single.count >= 2, let whole = undoubledKnown[single] { return [whole] }
        if let whole = misspelt[word] { return [whole] }
        let letters = Array(word)
        // Two glued words are each a known word, and none is longer than 24 letters: a longer
        // "word" is not split (each cut copies both halves, so a 35,000-letter word took minutes).
        if letters.count >= 5, letters.count <= 48 {
            for cut in 1..<(letters.count - 1) {
                let left = String(letters[..<cut]), right = String(letters[cut...])
                // One-letter words ("i", "a") are glued too once spread-out letters are joined: "acancer".
                guard left.count >= 2 || left == "i" || left == "a", right.count >= 2 || right == "i" || right == "a" else { continue }
                let rightWord = known.contains(right) ? right : misspelt[right]
                guard let rightWord else { continue }
                if known.contains(left), isSignal(left) || isSignal(rightWord) { return [left, rightWord] }
                // An unknown first half is trusted only before a long signal word: "massivescumbags".
                if left.count >= 4, right.count >= 5, known.contains(right), isSignal(right) { return [left, right] }
            }
        }
        return [word]
    }

    private func isSignal(_ word: String) -> Bool {
        slurs[word] != nil || !(cue(word).subtracting([.clauseBreak, .intent, .positive, .past, .minor, .personNoun])).isEmpty
    }

    /// Doubled letters made single: "kill" as "kil".
    static func undouble(_ word: String) -> String {
        var out = String.UnicodeScalarView()
        var last: Unicode.Scalar = " "
        for scalar in word.unicodeScalars where scalar != last {
            out.append(scalar)
            last = scalar
        }
        return String(out)
    }

    static let functionWords: Set<String> = Set("""
        i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers \
        herself it its itself they them their theirs themselves this that these those a an the and or but if then so \
        to of in on at by for with about against between into through during before after above below from up down \
        out off over under again further once here there when where why how all any both each few more most other \
        some such only own same than too very just can will would should could may might must shall do does did done \
        doing have has had having be been being am is are was were not no nor never always ever also really \
        absolutely totally completely truly simply absolute total complete utter massive real huge so such even still yet already much many every everyone everybody \
        someone somebody anyone anybody one ones people person like behaviour behavior around place country \
        world planet society government thing things what who whom which whose while because though although \
        until unless since let lets get got go goes going gone make makes made see seen saw know knew think \
        thought believe feel felt want wanted need needed come came take took give gave tell told say said \
        day days time times year years today tomorrow tonight yesterday now well back way good great new old \
        big small long little high right left last first next other another sure okay yes yeah oh hey hi \
        please thank thanks sorry grandma grandmother grandpa grandfather mom mum dad mother father uncle aunt \
        brother sister cousin son daughter family church school town city story stories history
        """.split(separator: " ").map(String.init))
}
