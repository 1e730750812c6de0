import LocatedJSON
import NIOCore
import NIOPosix
import NIOWebSocket

/// One page's WebSocket joined to a connection of its own on the engine's control socket: each
/// text message is one request line to the engine, each line from the engine (replies and the
/// lines of the streams the page follows) one text message back. Backpressure carries through:
/// a browser that stops reading stops the bridge reading the engine, and the engine then drops
/// the connection by its own limits (PROTOCOL.md), as it would drop any slow client.
struct EngineBridge {
    let socketPath: String

    /// The longest line taken from the engine; the engine disconnects a client holding more.
    static let maximumLine = 8 << 20

    func serve(_ webSocket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async throws {
        try await webSocket.executeThenClose { browserFrames, browser in
            let engine: NIOAsyncChannel<ByteBuffer, ByteBuffer>
            do {
                engine = try await ClientBootstrap(group: webSocket.channel.eventLoop)
                    .connect(unixDomainSocketPath: socketPath) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder(limit: Self.maximumLine)))
                            return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
            } catch {
                let message = JSONText.quoted("no engine answers on \(socketPath): \(error); start one with iaa run")
                let reply = "{\"id\":null,\"error\":{\"code\":\"engineUnreachable\",\"message\":\(message)}}"
                try await browser.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: reply)))
                try await browser.write(Self.close(.goingAway))
                return
            }
            try await engine.executeThenClose { engineLines, toEngine in
                try await withThrowingTaskGroup(of: Void.self) { both in
                    both.addTask {
                        for try await frame in browserFrames {
                            switch frame.opcode {
                            case .text:
                                var line = frame.unmaskedData
                                guard !line.readableBytesView.contains(UInt8(ascii: "\n")) else {
                                    try await browser.write(Self.close(.protocolError))
                                    return
                                }
                                line.writeInteger(UInt8(ascii: "\n"))
                                try await toEngine.write(line)
                            case .ping:
                                try await browser.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                            case .connectionClose:
                                var data = frame.unmaskedData
                                let code = data.readSlice(length: 2) ?? ByteBuffer()
                                try await browser.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
                                return
                            case .pong:
                                break
                            default:
                                try await browser.write(Self.close(.unacceptableData))
                                return
                            }
                        }
                    }
                    both.addTask {
                        for try await line in engineLines {
                            try await browser.write(WebSocketFrame(fin: true, opcode: .text, data: line))
                        }
                        // The engine stopped: the page says so and tries again.
                        try await browser.write(Self.close(.goingAway))
                    }
                    try await both.next()
                    both.cancelAll()
                }
            }
        }
    }

    private static func close(_ code: WebSocketErrorCode) -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }
}

/// Splits the engine's output into lines (without their `\n`).
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let limit: Int

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > limit { throw LineTooLong() }
            return .needMoreData
        }
        let line = buffer.readSlice(length: newline - buffer.readerIndex)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
