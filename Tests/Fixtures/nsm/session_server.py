#!/usr/bin/env python3
"""The server side of New Session Manager's protocol (OSC over UDP), enough to drive one client
through announce, open, a change, save and stop, as nsmd or RaySession would. Used by
NSMSessionTests. Usage: session_server.py IAA_BINARY SESSION_FOLDER CLIENT_ID
Prints one line per step; exits non-zero at the first step that fails."""
import os, signal, socket, struct, subprocess, sys, time

def pad(b):
    return b + b"\0" * (4 - len(b) % 4)

def message(path, *args):
    tags, data = ",", b""
    for a in args:
        if isinstance(a, int):
            tags += "i"; data += struct.pack(">i", a)
        else:
            tags += "s"; data += pad(a.encode())
    return pad(path.encode()) + pad(tags.encode()) + data

def parse(packet):
    def string(at):
        end = packet.index(b"\0", at)
        return packet[at:end].decode(), (end + 4) & ~3
    path, at = string(0)
    tags, at = string(at)
    args = []
    for t in tags[1:]:
        if t == "i":
            args.append(struct.unpack(">i", packet[at:at + 4])[0]); at += 4
        elif t == "s":
            s, at = string(at); args.append(s)
    return path, args

def receive(sock, timeout):
    sock.settimeout(timeout)
    data, sender = sock.recvfrom(65536)
    return parse(data) + (sender,)

iaa, folder, client_id = sys.argv[1:4]
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
env = dict(os.environ, NSM_URL="osc.udp://127.0.0.1:%d/" % sock.getsockname()[1])
log = open(os.path.join(folder, "iaa.log"), "w")
engine = subprocess.Popen([iaa], env=env, stdout=log, stderr=log)
try:
    path, args, client = receive(sock, 20)
    print("announce", path, *args, flush=True)
    assert path == "/nsm/server/announce" and args[0] == "iaa" and args[3:5] == [1, 2] and args[5] == engine.pid
    sock.sendto(message("/reply", "/nsm/server/announce", "welcome", "test-session-server", ":server-control:"), client)
    instance = os.path.join(folder, "iaa." + client_id)
    sock.sendto(message("/nsm/client/open", instance, "iaa", client_id), client)
    path, args, _ = receive(sock, 30)
    print("open", path, *args, flush=True)
    assert path == "/reply" and args[0] == "/nsm/client/open"
    # A change made while the session runs, as a user would make it.
    change = subprocess.run([iaa, "set", "tone", "frequency", "660", "-n", client_id], capture_output=True, text=True)
    print("set", change.returncode, change.stderr.strip(), flush=True)
    assert change.returncode == 0
    sock.sendto(message("/nsm/client/save"), client)
    path, args, _ = receive(sock, 20)
    print("save", path, *args, flush=True)
    assert path == "/reply" and args[0] == "/nsm/client/save"
finally:
    # nsmd stops its clients with SIGTERM.
    if engine.poll() is None:
        engine.send_signal(signal.SIGTERM)
    try:
        code = engine.wait(timeout=15)
    except subprocess.TimeoutExpired:
        engine.kill(); code = engine.wait()
    print("exit", code, flush=True)
