import ArgumentParser
import AudioGraph

/// `--isolation auto|process|none` on `iaa run` and `iaa render`.
extension IsolationChoice: ExpressibleByArgument {}
