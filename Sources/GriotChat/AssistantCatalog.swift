import Foundation

/// The assistants an engine knows, by id: what each declares (display name, retrieval, offline
/// answer, reply format and check). An assistant with a prompt folder and no declaration here
/// is answered as a plain one (`AssistantDeclaration.plain`), so a prompt folder alone still chats.
///
/// ```swift
/// let assistants = AssistantCatalog.builtIn.adding(storyteller)
/// let engine = ChatEngine(archive: archive, chats: chats, prompts: prompts, provider: provider, counters: .bytePair,
///                         assistants: assistants)
/// ```
public struct AssistantCatalog: Sendable {
    private var declarations: [String: AssistantDeclaration]

    public init(_ declarations: [AssistantDeclaration] = []) {
        self.declarations = [:]
        for declaration in declarations { self.declarations[declaration.id] = declaration }
    }

    /// Ask the Griot and the SelfFull coach.
    public static let builtIn = AssistantCatalog([.griot, .coach])

    /// The catalog with `declaration` added (in place of one with the same id).
    public func adding(_ declaration: AssistantDeclaration) -> AssistantCatalog {
        var catalog = self
        catalog.declarations[declaration.id] = declaration
        return catalog
    }

    /// The declared assistant of that id, if any.
    public subscript(id: String) -> AssistantDeclaration? { declarations[id] }

    /// The declaration a turn of `id` runs under: the declared one, else a plain one.
    public func declaration(for id: String) -> AssistantDeclaration {
        declarations[id] ?? .plain(id: id)
    }

    /// The declared assistants' ids, sorted.
    public var ids: [String] { declarations.keys.sorted() }
}

extension AssistantDeclaration {
    /// Ask the Griot: answers from the family's stories the asker may see.
    public static let griot = AssistantDeclaration(id: "griot", displayName: "the Griot", retrieval: .stories, offline: ArchiveComposer())

    /// The SelfFull coach: its material is the course and the thread, so it retrieves nothing.
    public static let coach = AssistantDeclaration(id: "coach", displayName: "the SelfFull coach", retrieval: .none, offline: CoachComposer())

    /// An assistant known only by its prompt folder: named by its id, retrieving stories as its
    /// prompt's `retrieval.k` says, answered offline by the archive's responder.
    public static func plain(id: String) -> AssistantDeclaration {
        AssistantDeclaration(id: id, displayName: id, retrieval: .stories)
    }
}
