/// App-level dependencies between apps, built connection by connection, that refuses the
/// connection closing a cycle and orders apps so that every app follows the apps feeding it.
package struct TopologicalOrder {
    private var successors: [[Int]]

    package init(appCount: Int) {
        successors = Array(repeating: [], count: appCount)
    }

    /// Adds `from → to`, unless it closes a cycle: then returns the apps of that cycle in order,
    /// starting and ending with `to` (`[a, b, a]`; `[a, a]` for a self-connection), and leaves the
    /// dependency out so that later cycles are found on their own.
    package mutating func add(from: Int, to: Int) -> [Int]? {
        // An app nothing depends on yet closes no cycle (most adds, from sources towards the
        // mix): no search, and no visited set to allocate.
        guard from == to || !successors[to].isEmpty else {
            if !successors[from].contains(to) { successors[from].append(to) }
            return nil
        }
        if let path = path(from: to, to: from) { return path + [to] }
        if !successors[from].contains(to) { successors[from].append(to) }
        return nil
    }

    /// A path `start ⇝ goal` through existing dependencies, by depth-first search in file order.
    ///
    /// Iterative, with the path as its stack, so that a chain of thousands of apps cannot
    /// exhaust the thread's stack.
    private func path(from start: Int, to goal: Int) -> [Int]? {
        if start == goal { return [start] }
        var visited = Array(repeating: false, count: successors.count)
        visited[start] = true
        // Each node on the path, with the index of its next successor to try.
        var path: [Int] = [start]
        var nextSuccessor: [Int] = [0]
        while let node = path.last {
            let successorsOfNode = successors[node]
            var index = nextSuccessor[nextSuccessor.count - 1]
            while index < successorsOfNode.count, visited[successorsOfNode[index]] { index += 1 }
            guard index < successorsOfNode.count else {
                path.removeLast()
                nextSuccessor.removeLast()
                continue
            }
            nextSuccessor[nextSuccessor.count - 1] = index + 1
            let next = successorsOfNode[index]
            path.append(next)
            if next == goal { return path }
            visited[next] = true
            nextSuccessor.append(0)
        }
        return nil
    }

    /// Every app once, each after all apps that feed it; among apps free to go, file order wins,
    /// so the order is stable when the file is edited elsewhere.
    package func order() -> [Int] {
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
