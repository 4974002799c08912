extension ExtractiveResponder {
    /// What the offline responder says first when the asker wrote in another language than
    /// English: in the asker's language, that this answer is in English and that the stories are
    /// quoted as they were told (it has no model to write in another language). Nil for English;
    /// for a language with no note here, the English one.
    ///
    /// ```swift
    /// ExtractiveResponder.languageNote(for: "pl")
    /// // "(Ta odpowiedź offline jest po angielsku; historie są cytowane tak, jak zostały opowiedziane.)"
    /// ```
    static func languageNote(for language: String) -> String? {
        guard language != "en" else { return nil }
        return languageNotes[language] ?? englishNote
    }

    /// The reply without the note it opens with, if any: the note speaks of the reply, not of
    /// the past, so the groundedness stage does not look for it in the stories.
    static func withoutLanguageNote(_ reply: String) -> String {
        guard reply.hasPrefix("(") || reply.hasPrefix("（") else { return reply }
        for note in [englishNote] + Array(languageNotes.values) where reply.hasPrefix(note) {
            return String(reply.dropFirst(note.count)).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return reply
    }

    static let englishNote = "(This offline answer is written in English; the stories are quoted as they were told.)"

    /// One note for every language `LanguageDetector` can name (a test holds the two lists together).
    static let languageNotes: [String: String] = [
        "es": "(Esta respuesta sin conexión está en inglés; las historias se citan tal como se contaron.)",
        "fr": "(Cette réponse hors ligne est en anglais ; les histoires sont citées telles qu'elles ont été racontées.)",
        "de": "(Diese Offline-Antwort ist auf Englisch; die Geschichten werden so zitiert, wie sie erzählt wurden.)",
        "it": "(Questa risposta offline è in inglese; le storie sono citate così come sono state raccontate.)",
        "pt": "(Esta resposta offline está em inglês; as histórias são citadas tal como foram contadas.)",
        "nl": "(Dit offline antwoord is in het Engels; de verhalen worden geciteerd zoals ze zijn verteld.)",
        "sv": "(Det här offlinesvaret är på engelska; berättelserna citeras som de berättades.)",
        "pl": "(Ta odpowiedź offline jest po angielsku; historie są cytowane tak, jak zostały opowiedziane.)",
        "tr": "(Bu çevrimdışı yanıt İngilizcedir; hikâyeler anlatıldıkları gibi aktarılmıştır.)",
        "sw": "(Jibu hili la nje ya mtandao liko kwa Kiingereza; hadithi zimenukuliwa kama zilivyosimuliwa.)",
        "id": "(Jawaban luring ini dalam bahasa Inggris; cerita-cerita dikutip sebagaimana diceritakan.)",
        "vi": "(Câu trả lời ngoại tuyến này bằng tiếng Anh; các câu chuyện được trích dẫn đúng như đã được kể.)",
        "tl": "(Ang offline na sagot na ito ay nasa Ingles; ang mga kuwento ay sinipi kung paano ito ikinuwento.)",
        "ht": "(Repons san entènèt sa a an angle; istwa yo site jan yo te rakonte yo.)",
        "ja": "（このオフラインの回答は英語です。物語は語られたとおりに引用しています。）",
        "ko": "(이 오프라인 답변은 영어로 작성되었습니다. 이야기는 들려준 그대로 인용합니다.)",
        "zh": "（此离线回答为英文；故事按原话引用。）",
        "ar": "(هذه الإجابة دون اتصال مكتوبة بالإنجليزية؛ وتُقتبس القصص كما رُويت.)",
        "he": "(תשובה לא מקוונת זו כתובה באנגלית; הסיפורים מצוטטים כפי שסופרו.)",
        "ru": "(Этот офлайн-ответ написан на английском; истории цитируются так, как их рассказали.)",
        "uk": "(Ця офлайн-відповідь написана англійською; історії цитуються так, як їх розповіли.)",
        "el": "(Αυτή η απάντηση εκτός σύνδεσης είναι στα αγγλικά· οι ιστορίες παρατίθενται όπως ειπώθηκαν.)",
        "hi": "(यह ऑफ़लाइन उत्तर अंग्रेज़ी में है; कहानियाँ वैसे ही उद्धृत की गई हैं जैसे सुनाई गई थीं।)",
        "th": "(คำตอบออฟไลน์นี้เป็นภาษาอังกฤษ เรื่องเล่าถูกยกมาตามที่เล่าไว้)",
        "am": "(ይህ ከመስመር ውጭ የሆነ መልስ በእንግሊዝኛ ነው፤ ታሪኮቹ እንደተነገሩት ተጠቅሰዋል።)",
    ]
}
