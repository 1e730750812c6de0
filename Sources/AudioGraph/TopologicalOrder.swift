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
        // Apps free to go, smallest index first: a binary min-heap, since a scan for the first
        // free app per step was quadratic, and showed when loading a graph of thousands of apps.
        var free = MinHeap()
        for app in indegree.indices where indegree[app] == 0 { free.insert(app) }
        var result: [Int] = []
        result.reserveCapacity(successors.count)
        while let next = free.popMin() {
            result.append(next)
            for target in successors[next] {
                indegree[target] -= 1
                if indegree[target] == 0 { free.insert(target) }
            }
        }
        return result
    }
}

/// A binary min-heap of app indices.
private struct MinHeap {
    private var items: [Int] = []

    mutating func insert(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> Int? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        let minimum = items[0]
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { return minimum }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
