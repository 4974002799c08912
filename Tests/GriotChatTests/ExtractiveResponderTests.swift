import Foundation
@testable import GriotChat
import GriotEmbedding
import GriotProviders
import GriotSafety
import Testing

/// The offline responder on passages made by hand, so each rule is seen alone.
@Suite struct ExtractiveResponderTests {
    let responder = ExtractiveResponder()

    func reply(_ question: String, _ passages: [GroundingPassage]) -> String {
        responder.compose(ChatRequest(messages: [ChatMessage(role: .user, content: question)],
                                      grounding: Grounding(assistant: "griot", question: question, passages: passages)))
    }

    /// An interview whose transcript names its two speakers, the interviewer first.
    func interview(number: Int = 1, interviewee: String, speaker: String, interviewer: String = "Simone Batiste-Reyes",
                   asked: String, told: String) -> GroundingPassage {
        let text = asked + " " + told
        return GroundingPassage(number: number, storyID: "story-\(number)", passageID: "p\(number)", storyTitle: "On the Docks",
                                people: [interviewee, interviewer], text: text, interviewees: [interviewee],
                                speakerRuns: [.init(start: 0, speaker: interviewer),
                                              .init(start: asked.unicodeScalars.count + 1, speaker: speaker)])
    }

    @Test func theIntervieweeIsQuotedWhenTheTranscriptNamesThemByTheirNickname() {
        let passage = interview(interviewee: "Theodore \"Teddy\" Batiste", speaker: "Teddy Batiste",
                                asked: "Uncle Teddy, tell me again about the union hall and the docks.",
                                told: "I worked casual about a year on the docks, then the union hall took me in as a B-man.")
        let text = reply("What did Teddy do on the docks?", [passage])
        #expect(text.contains("“I worked casual about a year on the docks, then the union hall took me in as a B-man.” [1]"), "\(text)")
        #expect(!text.contains("Uncle Teddy, tell me again"), "the interviewer's words are not the story: \(text)")
    }

    @Test func aSpeakerLabelNamesTheIntervieweeOnlyWhenTheNamesPlainlyAgree() {
        let teddy = "Theodore \"Teddy\" Batiste"
        #expect(ExtractiveResponder.samePerson(speaker: "Teddy Batiste", interviewee: teddy))
        #expect(ExtractiveResponder.samePerson(speaker: "Teddy", interviewee: teddy))
        #expect(ExtractiveResponder.samePerson(speaker: "Theodore Batiste", interviewee: teddy))
        #expect(ExtractiveResponder.samePerson(speaker: "Mr. Teddy Batiste", interviewee: teddy))
        #expect(!ExtractiveResponder.samePerson(speaker: "Batiste", interviewee: teddy), "a surname alone names a family")
        #expect(!ExtractiveResponder.samePerson(speaker: "Mrs. Batiste", interviewee: teddy))
        #expect(!ExtractiveResponder.samePerson(speaker: "Simone Batiste-Reyes", interviewee: teddy))
        #expect(!ExtractiveResponder.samePerson(speaker: "Teddy Williams", interviewee: teddy))
        #expect(!ExtractiveResponder.samePerson(speaker: "Interviewer", interviewee: teddy))
    }

    @Test func aStoryAboutAnotherPersonOfTheSameGivenNameIsNotCitedForTheOneAskedAbout() {
        let steward = GroundingPassage(number: 1, storyID: "foundry", passageID: "p1", storyTitle: "Gate Four",
                                       people: ["Samuel Whitfield", "Walter Pettiford"],
                                       text: "Walter Pettiford was my steward at the foundry and he could quote the contract like Scripture.")
        let docks = GroundingPassage(number: 2, storyID: "docks", passageID: "p2", storyTitle: "On the Docks",
                                     people: ["Theodore \"Teddy\" Batiste", "Walter Pinkney"],
                                     text: "A sling load of steel came loose over our heads and Big Walter pushed me out of the way.")
        let text = reply("Who was Walter Pettiford?", [steward, docks])
        #expect(text.contains("[1]"), "\(text)")
        #expect(!text.contains("[2]") && !text.contains("Big Walter"), "Walter Pinkney is someone else: \(text)")
        // Asked by the given name alone, both Walters answer.
        let either = reply("Who was Walter?", [steward, docks])
        #expect(either.contains("[1]") && either.contains("[2]"), "\(either)")
    }

    @Test func theAnswerIsAboutThePersonTheQuestionNamesMostFully() {
        let passage = GroundingPassage(number: 1, storyID: "docks", passageID: "p1", storyTitle: "On the Docks",
                                       people: ["Simone Batiste-Reyes", "Theodore \"Teddy\" Batiste"],
                                       text: "Teddy Batiste worked forty years on the Oakland docks in Local 10.")
        let text = reply("Who was Teddy Batiste?", [passage])
        #expect(text.hasPrefix("Here is what the family's stories tell about Teddy Batiste."), "\(text)")
        // A double-barrelled surname is a surname: "Batiste" does not name Simone.
        #expect(ExtractiveResponder.givenNames("Simone Batiste-Reyes") == ["simone"])
        #expect(ExtractiveResponder.givenNames("Theodore \"Teddy\" Batiste") == ["theodore", "teddy"])
        #expect(ExtractiveResponder.givenNames("Aunt Lil") == ["lil"])
    }

    @Test func aQuestionNamingWhatNoPassageHoldsIsNotAnsweredFromItsCommonWords() {
        let civilWar = GroundingPassage(number: 1, storyID: "range", passageID: "p1", storyTitle: "Frank Range", people: ["Frank Range"],
                                        text: "He served in the Civil War as his master's cook and dug him out of the breast-works after a battle.")
        let text = reply("Did anyone serve in the Vietnam War?", [civilWar])
        #expect(text.contains("do not cover") || text.contains("do not answer"), "\(text)")
        #expect(!text.contains("[1]"), "\(text)")
        // The same passage answers the question it does speak to.
        #expect(reply("Did anyone serve in the Civil War?", [civilWar]).contains("[1]"))
    }

    @Test func aNameMisspeltAsRetrievalForgivesStillCountsAsHeld() {
        let passage = GroundingPassage(number: 1, storyID: "lucien", passageID: "p1", storyTitle: "Lucien's Trumpet",
                                       people: ["Lucien Batiste"], places: ["Chicago, Illinois"],
                                       text: "Lucien Batiste played trumpet in the Seventh Ward before the war took him to Chicago.")
        for question in ["What did Lucien Batsite play?", "Did Lucien Batiste ever go to Chicaga?"] {
            #expect(reply(question, [passage]).contains("[1]"), "\(question)")
        }
    }

    @Test func namesAreCapitalisedWordsThatDoNotBeginASentence() {
        #expect(ExtractiveResponder.names(in: "Did anyone serve in the Vietnam War?") == ["Vietnam", "War"])
        #expect(ExtractiveResponder.names(in: "Which of the narrators fought in World War II?") == ["World", "War"])
        #expect(ExtractiveResponder.names(in: "Who was Aunt Lil? Tell me about her.") == ["Lil"])
        #expect(ExtractiveResponder.names(in: "How did Dave Harper save Col. Harper's life?") == ["Dave", "Harper"])
        #expect(ExtractiveResponder.names(in: "what happened at the levee in 1927?").isEmpty)
    }

    @Test func sharingOnlyACommonVerbLikeUseIsNoEvidenceThePassagesCoverTheQuestion() {
        let church = GroundingPassage(number: 1, storyID: "church", passageID: "p1", storyTitle: "Sunday Meeting",
                                      text: "We used to walk four miles to the brush arbor meeting every Sunday morning.")
        let text = reply("How did they use the telephone?", [church])
        #expect(text.contains("do not cover") || text.contains("do not answer"), "\(text)")
        #expect(reply("How did they use the brush arbor?", [church]).contains("[1]"))
    }

    @Test func inAnInterviewWithoutMarkedSpeakersThePersonsOwnWordsOutrankTheInterviewersProseNamingThem() {
        // As in the WPA narratives: the writer's third-person prose and the informant's words in one text.
        let text = """
            At the age of one hundred and three, Frank Range is a familiar figure in Greenville, talking freely of the war. \
            "I went to the war with my master as his cook, and dug him out of the breast-works when a shell buried him." \
            Frank Range returned to Newberry at the close of the war.
            """
        let passage = GroundingPassage(number: 1, storyID: "range", passageID: "p1", storyTitle: "Frank Range", people: ["Frank Range"],
                                       text: text, interviewees: ["Frank Range"])
        let answer = reply("What did Frank Range do for his master in the war?", [passage])
        #expect(answer.contains("breast-works"), "\(answer)")
    }

    @Test func headingBlocksAndTranscribersNotesAreNotQuotedAsWhatThePersonRecalls() {
        let text = """
            PLANTATION LIFE AS VIEWED BY EX-SLAVE

            GEORGIA BAKER, Age 87
            369 Meigs Street
            Athens, Georgia

            [TR: This interview with Georgia Baker of Athens is also filed in the second volume.]

            "I was born on de plantation of Marse Alec Stephens in Taliaferro County, Georgia."
            """
        let passage = GroundingPassage(number: 1, storyID: "baker", passageID: "p1", storyTitle: "Georgia Baker", people: ["Georgia Baker"],
                                       places: ["Athens, Georgia"], text: text, interviewees: ["Georgia Baker"])
        let answer = reply("Where was Georgia Baker born?", [passage])
        #expect(answer.contains("Marse Alec Stephens"), "\(answer)")
        for heading in ["PLANTATION LIFE", "Age 87", "Meigs Street", "[TR:"] {
            #expect(!answer.contains(heading), "\(heading): \(answer)")
        }
        #expect(ExtractiveResponder.isHeadingBlock("Interview with \"Aunt\" Hannah Allen,\nFredericktown, Missouri."))
        #expect(!ExtractiveResponder.isHeadingBlock("After the war the city decided West Oakland was a slum, and the freeway came through."))
    }
}

/// What issue 15 saw in answers about the WPA interviews, each rule on a passage made by hand.
@Suite struct ExtractiveAnswerFormTests {
    let responder = ExtractiveResponder()

    func reply(_ question: String, _ passages: [GroundingPassage]) -> String {
        responder.compose(ChatRequest(messages: [ChatMessage(role: .user, content: question)],
                                      grounding: Grounding(assistant: "griot", question: question, passages: passages)))
    }

    func archived(_ number: Int, _ title: String, places: [String] = [], _ text: String) -> GroundingPassage {
        GroundingPassage(number: number, storyID: "s-\(number)", passageID: "p\(number)", storyTitle: title, people: [title], places: places,
                         text: text, interviewees: [title], isArchive: true)
    }

    @Test func sourceAndInterviewerLinesAreNeverQuotedAsMemories() {
        let text = """
            Zofia Łukasiewicz remembers the mill at the river bend. "We carried the flour sacks down to the ferry every Thursday morning."

            SOURCE: Zofia Łukasiewicz (84), Box 12, Riverton.
            Interviewer: Mabel Orr, Riverton.
            """
        let answer = reply("What did Zofia Łukasiewicz carry to the ferry?", [archived(1, "Zofia Łukasiewicz", text)])
        #expect(answer.contains("flour sacks"), "\(answer)")
        #expect(!answer.contains("SOURCE") && !answer.contains("Interviewer:"), "\(answer)")
        #expect(answer.contains("Zofia Łukasiewicz"), "the name survives unchanged: \(answer)")
    }

    @Test func aQuotedSentenceIsNotWrappedInDoubledQuoteMarks() {
        let text = "Old Tobias Wren laughed at the memory. \"De river come up so high we rowed de mule to church that spring.\""
        let answer = reply("What did Tobias Wren say about the river rising?", [archived(1, "Tobias Wren", text)])
        #expect(answer.contains("“De river come up so high"), "\(answer)")
        #expect(!answer.contains("“\""), "\(answer)")
        #expect(!answer.contains("\"”"), "\(answer)")
    }

    @Test func theInterviewersProseIsNotWhatTheTellerRecalls() {
        let text = """
            Tobias Wren lives in a small cabin behind the cotton gin and is said to be ninety. "My pappy built de gin house wid his own hands."
            """
        let prose = reply("Where does Tobias Wren live now?", [archived(1, "Tobias Wren", text)])
        #expect(prose.contains("cotton gin"), "\(prose)")
        #expect(!prose.contains("Tobias Wren recalls: “Tobias Wren lives"), "the writer's sentence is not his memory: \(prose)")
        let own = reply("Who built the gin house, according to Tobias Wren?", [archived(1, "Tobias Wren", text)])
        #expect(own.contains("Tobias Wren recalls: “My pappy built"), "\(own)")
    }

    @Test func anArchiveIsNotCalledTheFamilysStories() {
        let text = "\"We cut cane all winter and boiled it down for syrup in de big kettle.\""
        let answer = reply("How was the cane syrup made?", [archived(1, "Tobias Wren", text)])
        #expect(answer.contains("the stories in the archive"), "\(answer)")
        #expect(!answer.contains("family's stories"), "\(answer)")
    }

    @Test func aPlaceQuestionListsEveryStoryFiledThereAndNoPersonNamedForTheState() {
        let stories = (1...5).map { number in
            archived(number, "Teller \(number)", places: ["Georgia", "Columbus, Georgia"],
                     "\"I worked de cotton near de river when I was a girl, number \(number) of my mammy's chillun.\"")
        }
        let georgia = GroundingPassage(number: 6, storyID: "s-6", passageID: "p6", storyTitle: "Georgia Lamb", people: ["Georgia Lamb"],
                                       places: ["Georgia", "Athens, Georgia"], text: "\"I was raised up in Athens and never saw Columbus.\"",
                                       interviewees: ["Georgia Lamb"], isArchive: true)
        let answer = reply("My family comes from Columbus, Georgia. Were any of the old people there interviewed?", stories + [georgia])
        for number in 1...5 { #expect(answer.contains("[\(number)]"), "story \(number) is listed: \(answer)") }
        #expect(!answer.contains("Georgia Lamb comes up"), "the state is not a person: \(answer)")
        #expect(!answer.contains("[6]"), "filed in Athens, not Columbus: \(answer)")
    }

    @Test func placesNamedAsTownAndStateAreFound() {
        #expect(PlaceMention.candidates(in: "What did people around Cape Girardeau, Missouri say?").first == "Cape Girardeau, Missouri")
        #expect(PlaceMention.candidates(in: "Who lived in Winnsboro, South Carolina then?") == ["Winnsboro, South Carolina"])
        #expect(PlaceMention.candidates(in: "On whose plantation was Georgia Baker born?").isEmpty)
    }
}

/// Whether an archive's passages answer at all, decided by the calibrated MiniLM support with the
/// real embedder (issue 15), and the asked person's own interview, which answers in its own words.
@Suite struct CalibratedRelevanceTests {
    static let responder = ExtractiveResponder.scoring(with: try! SentenceEmbedder())

    func reply(_ question: String, _ passages: [GroundingPassage]) -> String {
        Self.responder.compose(ChatRequest(messages: [ChatMessage(role: .user, content: question)],
                                           grounding: Grounding(assistant: "griot", question: question, passages: passages)))
    }

    func archived(_ number: Int, _ teller: String, _ text: String) -> GroundingPassage {
        GroundingPassage(number: number, storyID: "s-\(number)", passageID: "p\(number)", storyTitle: teller, people: [teller],
                         text: text, interviewees: [teller], isArchive: true)
    }

    var riverside: [GroundingPassage] {
        [archived(1, "Tobias Wren", "We sat on de porch of an evening watching de steamboats come up to de landing. Old Cap'n Harlow blowed de whistle three times for us chillun."),
         archived(2, "Mabel Quarles", "Mammy was watching de pot of lye soap bubble in de yard when de overseer rode up. She never looked up from it.")]
    }

    @Test func sharingOneOfTwoKeyWordsIsNotEnoughWhenTheMeaningIsFarApart() {
        // "watching" is half of the key terms of the question; the passages are about something else.
        let text = reply("Did any of my ancestors talk about watching television?", riverside)
        #expect(text.contains("do not cover") || text.contains("do not answer"), "\(text)")
        #expect(!text.contains("[1]") && !text.contains("[2]"), "\(text)")
        // The same passages answer what they do say.
        let boats = reply("Did anyone watch the steamboats come in to the landing?", riverside)
        #expect(boats.contains("[1]") && boats.contains("steamboats"), "\(boats)")
    }

    @Test func theAskedPersonsOwnInterviewAnswersAQuestionWordedDifferently() {
        let passages = [archived(1, "Tobias Wren", "De Yankees come by de big house wid a prisoner in chains. Their band was a-playing a tune about a apple tree."),
                        archived(2, "Tobias Harlow", "I was hired out to a man in Macon who kept a livery stable.")]
        // "Union" is in no passage; the question asks about Tobias Wren, whose interview tells it.
        let text = reply("Grandpa Tobias Wren watched Union troops go by with a captive. What tune was their band playing?", passages)
        #expect(text.contains("apple tree") && text.contains("[1]"), "\(text)")
        // Another Tobias, named in full, has no interview here: the missing name still refuses.
        let other = reply("What did Tobias Stephens say about the Union army?", passages)
        #expect(other.contains("do not cover") || other.contains("do not answer"), "\(other)")
    }
}

/// Issue 23: the offline responder and the groundedness stage read stories in any language.
@Suite struct ExtractiveResponderLanguageTests {
    let responder = ExtractiveResponder()

    func reply(_ question: String, language: String?, _ passages: [GroundingPassage]) -> String {
        responder.compose(ChatRequest(messages: [ChatMessage(role: .user, content: question)],
                                      grounding: Grounding(assistant: "griot", question: question, passages: passages, language: language)))
    }

    /// A story as the archive gives it: places from its (English) metadata.
    func story(_ number: Int, title: String, teller: String, people: [String] = [], places: [String], _ text: String) -> GroundingPassage {
        GroundingPassage(number: number, storyID: "story-\(number)", passageID: "p\(number)", storyTitle: title,
                         people: [teller] + people, places: places, text: text, interviewees: [teller])
    }

    var bakery: GroundingPassage {
        story(1, title: "La panadería de la abuela", teller: "Josefina Ruiz", places: ["Oaxaca, Mexico"], """
            La panadería estaba en la calle Macedonio Alcalá, junto al mercado. Mi padre construyó el horno de leña \
            con sus propias manos en 1952. Yo horneaba pan de yema y conchas todas las mañanas antes de que saliera el sol. \
            Los domingos vendíamos chocolate caliente a los vecinos.
            """)
    }

    var teahouse: GroundingPassage {
        story(1, title: "成都的茶馆", teller: "李秀英", people: ["Li Xiuying"], places: ["Chengdu, Sichuan"],
              "我们家的茶馆开在锦江边上，一九六二年开张。我每天早上五点起来烧水泡茶。客人最喜欢喝的是茉莉花茶。晚上常常有人在茶馆里唱川剧。")
    }

    var shipyard: GroundingPassage {
        story(1, title: "Sierpień 1980", teller: "Tadeusz Kamiński", people: ["Irena Kamińska"], places: ["Gdańsk Shipyard, Poland"], """
            W sierpniu 1980 roku spałem w stoczni na styropianie. Babcia Irena przychodziła codziennie pod bramę numer dwa \
            i podawała mi kanapki z pasztetem przez kraty. Strajk trwał osiemnaście dni.
            """)
    }

    @Test func theSentenceThatAnswersIsQuotedNotTheOpening() {
        let spanish = reply("¿Qué horneaba mi abuela Josefina en Oaxaca?", language: "es", [bakery])
        #expect(spanish.contains("“Yo horneaba pan de yema y conchas todas las mañanas antes de que saliera el sol.” [1]"), "\(spanish)")
        #expect(spanish.hasPrefix("(Esta respuesta sin conexión está en inglés"), "\(spanish)")
        let chinese = reply("李秀英的茶馆里客人最喜欢喝什么茶？", language: "zh", [teahouse])
        #expect(chinese.contains("“客人最喜欢喝的是茉莉花茶。” [1]"), "\(chinese)")
    }

    @Test func inflectedNamesStillFindTheirStoryAndAnAbsentThingDoesNot() {
        let brama = reply("Gdzie babcia Irena podawała dziadkowi Tadeuszowi kanapki w czasie strajku?", language: "pl", [shipyard])
        #expect(brama.contains("bramę numer dwa") && brama.contains("[1]"), "\(brama)")
        let moon = reply("Czy dziadek był kiedyś na Księżycu?", language: "pl", [shipyard])
        #expect(!moon.contains("[1]"), "the story says nothing of the Moon: \(moon)")
        // Asked in English, the names and the year are what the question shares with the story.
        let english = reply("How many days did Tadeusz stay inside the shipyard during the August 1980 strike?", language: nil, [shipyard])
        #expect(english.contains("[1]"), "\(english)")
    }

    @Test func aVerbatimQuoteInAnyLanguageIsGrounded() {
        let stage = GroundednessStage(scorer: GroundednessScorer())
        for (question, language, passage) in [("¿Qué horneaba mi abuela Josefina en Oaxaca?", "es", bakery),
                                              ("李秀英的茶馆里客人最喜欢喝什么茶？", "zh", teahouse),
                                              ("Gdzie babcia Irena podawała kanapki?", "pl", shipyard)] {
            let answer = reply(question, language: language, [passage])
            #expect(answer.contains("[1]"), "\(answer)")
            let review = stage.review(answer: answer, passages: [passage.storyTitle + "\n" + passage.people.joined(separator: ", ") + "\n" + passage.text],
                                      question: question)
            #expect(review.flag == nil, "\(language): \(review.verdict.reason) for \(answer)")
            #expect(review.score.answer >= 0.8, "\(language): \(review.score.sentences.map { ($0.text, $0.score) })")
        }
        // The note on the reply's language is not a claim: a reply that says the stories are silent stays unflagged.
        let silent = reply("我爷爷在南极洲旅行时拍了什么照片？", language: "zh", [teahouse])
        #expect(!silent.contains("[1]"), "\(silent)")
        #expect(stage.review(answer: silent, passages: [teahouse.text], question: "我爷爷在南极洲旅行时拍了什么照片？").flag == nil)
    }
}
