import GriotChat

/// The storyteller assistant (the Joanie app): bedtime stories from a child's drawings.
public enum Storyteller {
    public static let id = "storyteller"
}
