import GriotEmbedding
import GriotSafety
import Testing

/// A fictional family's passages, as retrieval would hand them to the model.
private let passages = [
    """
    Well, my grandmother Bernice Okafor came up from Pine Bluff in 1948, on the Illinois Central. \
    She had two suitcases and a shoebox of fried chicken, and she cried the whole way to Chicago \
    because she had left her sister Coralie behind. She got work at the Stockyards the first week, \
    cleaning the offices at night, and she saved every nickel for a sewing machine.
    """,
    """
    The sewing machine came in 1951. It was a black Singer, secondhand, and it cost her forty \
    dollars. She made wedding dresses on it for half the women at Greater Bethel, and her shop \
    on Forty-Third Street had a sign my uncle Theo painted by hand.
    """,
    """
    Theo was the one who wanted to be a painter. He drew on everything, paper sacks, the backs \
    of church programs. Mama said he got that from Grandpa Isaiah, who carved birds out of pine.
    """,
]

private let embedder: SentenceEmbedder = {
    do { return try SentenceEmbedder() } catch { fatalError("\(error); run scripts/fetch-model.sh") }
}()

private let scorer = GroundednessScorer(embed: { embedder.embed($0) })

struct GroundednessScorerTests {
    @Test func aParaphraseOfAPassageIsGrounded() {
        let result = scorer.score(sentence: "She rode the train from Pine Bluff to Chicago in 1948 and wept for most of the trip, since Coralie had stayed behind.",
                                  passages: passages)
        #expect(result.score >= GroundednessScore.threshold)
        #expect(result.passage == 0)
        #expect(result.unsupported.isEmpty)
        #expect(result.isClaim)
    }

    @Test func aRestatementInOtherWordsStillScoresHigh() {
        let result = scorer.score(sentence: "Her secondhand Singer was bought for forty dollars.", passages: passages)
        #expect(result.score >= GroundednessScore.threshold)
        #expect(result.passage == 1)
    }

    @Test func theEmbeddingVouchesForARestatementTheWordsMiss() {
        let sentence = "She put aside all her earnings from the night cleaning job to buy equipment for sewing."
        let withWordsOnly = GroundednessScorer().score(sentence: sentence, passages: passages)
        let result = scorer.score(sentence: sentence, passages: passages)
        #expect(withWordsOnly.score < GroundednessScore.threshold)
        #expect(result.score >= GroundednessScore.threshold)
        #expect(result.passage == 0)
    }

    @Test func aSwappedYearIsNotGrounded() {
        let result = scorer.score(sentence: "She rode the train from Pine Bluff to Chicago in 1952 and wept for most of the trip.",
                                  passages: passages)
        #expect(result.score < GroundednessScore.threshold)
        #expect(result.unsupported == ["1952"])
    }

    @Test func aSwappedNameIsNotGrounded() {
        let result = scorer.score(sentence: "Her uncle Rufus painted the sign for the shop on Forty-Third Street by hand.",
                                  passages: passages)
        #expect(result.score < GroundednessScore.threshold)
        #expect(result.unsupported == ["Rufus"])
    }

    @Test func aSwappedNumberIsNotGrounded() {
        let result = scorer.score(sentence: "The black Singer cost her ninety dollars.", passages: passages)
        #expect(result.score < GroundednessScore.threshold)
        #expect(result.unsupported == ["ninety"])
    }

    @Test func numbersMatchWhetherWrittenInWordsOrDigits() {
        let result = scorer.score(sentence: "The black Singer cost her 40 dollars.", passages: passages)
        #expect(result.unsupported.isEmpty)
        #expect(result.score >= GroundednessScore.threshold)
    }

    @Test func aSentenceFromAnotherStoryIsNotGrounded() {
        let result = scorer.score(sentence: "The levee broke in the spring and the water rose to the porch roof.", passages: passages)
        #expect(result.score < GroundednessScore.threshold)
    }

    @Test func sentencesWithoutClaimsDoNotCount() {
        let grounded = "Bernice saved every nickel she earned cleaning the Stockyards offices for a sewing machine [1]."
        let alone = scorer.score(answer: grounded, passages: passages)
        let padded = scorer.score(answer: "\(grounded) I hope this helps. The stories don't say. Would you like to know more?", passages: passages)
        #expect(padded.answer == alone.answer)
        #expect(padded.sentences.map(\.isClaim) == [true, false, false, false])
        #expect(scorer.score(answer: "I hope this helps.", passages: passages).answer == 1)
    }

    @Test func markersAreStrippedAndTheCitedPassageIsTriedFirst() {
        let result = scorer.score(answer: "Theo painted the sign by hand [2]. He got his gift from Grandpa Isaiah [1, 3].", passages: passages)
        #expect(result.sentences.map(\.text) == ["Theo painted the sign by hand.", "He got his gift from Grandpa Isaiah."])
        #expect(result.sentences[0].passage == 1)
        #expect(result.sentences[1].passage == 2)
        #expect(!result.isLowGroundedness)
    }

    @Test func oneInventedSentenceInAShortAnswerFlagsTheTurn() {
        let result = scorer.score(answer: "Bernice came to Chicago in 1948 [1]. She opened a bakery in Memphis in 1960 with Coralie.",
                                  passages: passages)
        #expect(result.sentences[0].score >= GroundednessScore.threshold)
        #expect(result.sentences[1].score < GroundednessScore.threshold)
        #expect(result.isLowGroundedness)
    }

    @Test func oneInventedYearInALongAnswerFlagsTheTurn() {
        let answer = """
            Bernice Okafor came up from Pine Bluff on the Illinois Central [1]. She cleaned the \
            Stockyards offices at night and saved every nickel for a sewing machine [1]. The machine \
            was a black Singer, bought secondhand in 1953 [2]. She made wedding dresses on it for \
            the women at Greater Bethel [2]. Theo painted the sign for her shop by hand [2].
            """
        let result = scorer.score(answer: answer, passages: passages)
        #expect(result.sentences.filter { $0.score < GroundednessScore.threshold }.map(\.unsupported) == [["1953"]])
        #expect(result.isLowGroundedness)
    }

    @Test func withoutAnEmbedderTheScoreIsLexical() {
        let result = GroundednessScorer().score(sentence: "Bernice cleaned the Stockyards offices at night.", passages: passages)
        #expect(result.semantic == nil)
        #expect(result.score >= GroundednessScore.threshold)
    }
}
