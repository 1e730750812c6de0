/// The order a plan runs its apps in, and its waves.
enum WaveOrder {
    /// `graph.order` when fewer than two apps are phased; otherwise a topological order in which
    /// the phased apps that become free together run as one wave. Apps in process keep their
    /// relative order and go first whenever they are free (file order among them, as in
    /// `graph.order`); then every phased app that is free forms the next wave.
    /// Returns, per position of the order, the position just past that wave's last member when
    /// the position starts a wave of two or more, else -1.
    static func make(_ graph: Graph, phased: [Bool]) -> (order: [Int], waveEnd: [Int32]) {
        let count = graph.order.count
        guard phased.lazy.filter({ $0 }).count >= 2 else { return (graph.order, Array(repeating: -1, count: count)) }
        var rank = Array(repeating: 0, count: graph.apps.count)
        for (position, app) in graph.order.enumerated() { rank[app] = position }
        var successors = Array(repeating: [Int](), count: graph.apps.count)
        var indegree = Array(repeating: 0, count: graph.apps.count)
        for connection in graph.connections {
            var (from, to) = (connection.from.app, connection.to.app)
            // An input reading the previous cycle (a host's return) orders nothing in the graph's
            // order; its two apps keep that order's sequence here, so it reads the same cycle.
            if graph.apps[to].layout.inputs[connection.to.port].readsPreviousCycle && rank[from] > rank[to] {
                (from, to) = (to, from)
            }
            guard !successors[from].contains(to) else { continue }
            successors[from].append(to)
            indegree[to] += 1
        }
        // Free apps: in-process ones one at a time, lowest rank first (kept sorted by rank,
        // highest first, so the next is the last), phased ones a wave at a time.
        var freeInProcess: [Int] = [], freePhased: [Int] = []
        func free(_ app: Int) {
            if phased[app] {
                freePhased.append(app)
                return
            }
            var low = 0, high = freeInProcess.count
            while low < high {
                let middle = (low + high) / 2
                if rank[freeInProcess[middle]] > rank[app] { low = middle + 1 } else { high = middle }
            }
            freeInProcess.insert(app, at: low)
        }
        for app in graph.order where indegree[app] == 0 { free(app) }
        func release(_ app: Int) {
            for next in successors[app] {
                indegree[next] -= 1
                if indegree[next] == 0 { free(next) }
            }
        }
        var order: [Int] = []
        var waveEnd: [Int32] = []
        order.reserveCapacity(count)
        while order.count < count {
            while let app = freeInProcess.popLast() {
                order.append(app)
                waveEnd.append(-1)
                release(app)
            }
            if order.count == count { break }
            let wave = freePhased.sorted { rank[$0] < rank[$1] }
            precondition(!wave.isEmpty, "graph.order is not a topological order of its connections")
            freePhased.removeAll()
            let end = Int32(order.count + wave.count)
            for (index, app) in wave.enumerated() {
                order.append(app)
                waveEnd.append(index == 0 && wave.count > 1 ? end : -1)
            }
            // Released only after the whole wave is placed: no member feeds another.
            for app in wave { release(app) }
        }
        return (order, waveEnd)
    }
}
