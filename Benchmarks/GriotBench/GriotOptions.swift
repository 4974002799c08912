import ArgumentParser

/// The griot a benchmark starts as `griot serve`: its executable, the stories ingested into the
/// service's temporary database, and its prompts. Shared, with `@OptionGroup`, by every benchmark
/// that runs the service as a child process.
///
/// ```swift
/// @OptionGroup var griot: GriotOptions
/// try ServiceProcess.ingest(griot.executable, corpus: griot.corpus, into: database, log: log)
/// ```
struct GriotOptions: ParsableArguments {
    @Option(name: .customLong("griot"), help: ArgumentHelp("The griot executable (a release build).", valueName: "griot"))
    var executable = ".build/release/griot"

    @Option(help: "The stories to ingest into the service's temporary database.")
    var corpus = "corpus"

    @Option(help: "The prompts folder the service uses.")
    var prompts = "prompts"
}
