import Foundation
import Testing
import TestKit

/// Holds an isolated app's child off its CPU for a while, as other engines' real-time threads do
/// on a busy machine: a busy thread at the child's real-time priority on the child's CPU (the
/// audio thread's) runs first in, first out, while the audio thread, above both, goes on asking
/// the child for cycles it cannot answer.
enum Starvation {
    static func holdOff(child: Int, seconds: Double) throws {
        let stat = try String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        let priority = try #require(Int(fields[37])), policy = try #require(Int(fields[38]))
        try #require(policy == 1 && priority > 0, "the child is not SCHED_FIFO (policy \(policy), priority \(priority))")
        let affinity = try runCommand("taskset", ["-cp", "\(child)"]).stdout
        let cpu = try #require(affinity.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let hog = try runCommand("chrt", ["-f", "\(priority)", "taskset", "-c", cpu, "/usr/bin/python3", "-c",
                                          "import time\nend = time.monotonic() + \(seconds)\nwhile time.monotonic() < end: pass"])
        try #require(hog.status == 0, "\(hog.stderr)")
    }
}
