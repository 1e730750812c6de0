import ArgumentParser
import ControlSocket

// The protocol's closed sets, taken as command-line arguments: one list of values for both.
extension ControlCall.InterruptionPhase: ExpressibleByArgument {}
extension ControlCall.TaskAction: ExpressibleByArgument {}
extension ControlCall.RemoteCommand: ExpressibleByArgument {}
extension ControlCall.GraphFormat: ExpressibleByArgument {}
