/// App-level dependencies between apps, built connection by connection, that refuses the
/// connection closing a cycle and orders apps so that every app follows the apps feeding it.
struct TopologicalOrder {
    private var successors: [[Int]]

    init(appCount: Int) {
        successors = Array(repeating: [], count: appCount)
    }

    /// Adds `from → to`, unless it closes a cycle: then returns the apps of that cycle in order,
    /// starting and ending with `to` (`[a, b, a]`; `[a, a]` for a self-connection), and leaves the
    /// dependency out so that later cycles are found on their own.
    mutating func add(from: Int, to: Int) -> [Int]? {
        if let path = path(from: to, to: from) { return path + [to] }
        if !successors[from].contains(to) { successors[from].append(to) }
        return nil
    }

    /// A path `start ⇝ goal` through existing dependencies, by depth-first search in file order.
    private func path(from start: Int, to goal: Int) -> [Int]? {
        var visited = Array(repeating: false, count: successors.count)
        var path: [Int] = []
        func visit(_ node: Int) -> Bool {
            path.append(node)
            if node == goal { return true }
            visited[node] = true
            for next in successors[node] where !visited[next] {
                if visit(next) { return true }
            }
            path.removeLast()
            return false
        }
        return visit(start) ? path : nil
    }

    /// Every app once, each after all apps that feed it; among apps free to go, file order wins,
    /// so the order is stable when the file is edited elsewhere.
    func order() -> [Int] {
        var indegree = Array(repeating: 0, count: successors.count)
        for targets in successors {
            for target in targets { indegree[target] += 1 }
        }
        var done = Array(repeating: false, count: successors.count)
        var result: [Int] = []
        result.reserveCapacity(successors.count)
        while result.count < successors.count {
            // Quadratic, and fine: graphs have tens of apps, and this runs off the audio thread.
            guard let next = indegree.indices.first(where: { !done[$0] && indegree[$0] == 0 }) else { break }
            done[next] = true
            result.append(next)
            for target in successors[next] { indegree[target] -= 1 }
        }
        return result
    }
}
