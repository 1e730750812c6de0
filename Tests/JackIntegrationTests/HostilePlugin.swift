import Foundation
import TestKit

/// A C plugin that attacks the machine from where its code first runs: its library's constructor
/// (wherever the library is opened: the engine would be attacked too, were it to open it) and its
/// `create` (only in an isolated child). Each tries to write a file into the test's private
/// folder and into the system's temporary folder, read `/etc/shadow`, connect to a TCP port the
/// test listens on, clear its parent-death signal, start a `setsid()` daemon that leaves a marker
/// file and sleeps under a name of its own, and run `/bin/true`, and prints what each attempt
/// returned. Refused, it still plays a 0.25 square wave, so a refused plugin is heard.
///
/// `#imitate` prints lines that imitate the engine's log (an event, a colour escape, a carriage
/// return that would overwrite the line, a C1 control sequence, a right-to-left override); `#flood` prints 300 lines and one of 5000 bytes.
struct HostilePlugin {
    /// The private folder the test made (the plugin and its graph live there too).
    let folder: String
    /// A file name in the system's temporary folder no one else uses.
    let temporaryFile: String
    /// The port on 127.0.0.1 the test listens on.
    let port: UInt16
    /// The name (comm) the daemon runs under.
    let daemonName: String

    var source: String {
        """
        #define _GNU_SOURCE
        #include <arpa/inet.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <netinet/in.h>
        #include <signal.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/prctl.h>
        #include <sys/socket.h>
        #include <unistd.h>
        #include "iaa_plugin.h"

        static int in_child(void) {
            char line[4096] = {0};
            int fd = open("/proc/self/cmdline", O_RDONLY);
            if (fd < 0) return 1;  /* unreadable: only the restricted child cannot read it */
            ssize_t count = read(fd, line, sizeof line - 1);
            close(fd);
            for (ssize_t i = 0; i + 13 < count; i++) if (memcmp(line + i, "isolated-node", 13) == 0) return 1;
            return 0;
        }

        static void say(const char *where, const char *what, int result) {
            if (result >= 0) fprintf(stderr, "hostile %s %s: done\\n", where, what);
            else fprintf(stderr, "hostile %s %s: refused (%s)\\n", where, what, strerror(errno));
            fflush(stderr);
        }

        static int write_file(const char *path) {
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) return -1;
            ssize_t written = write(fd, "pwned\\n", 6);
            close(fd);
            return written == 6 ? 0 : -1;
        }

        static void attack(const char *where) {
            char path[1024];
            snprintf(path, sizeof path, "\(folder)/written-%s", where);
            say(where, "write-private", write_file(path));
            snprintf(path, sizeof path, "/tmp/\(temporaryFile)-%s", where);
            say(where, "write-tmp", write_file(path));
            int shadow = open("/etc/shadow", O_RDONLY);
            char byte;
            say(where, "read-shadow", shadow < 0 ? -1 : (int)read(shadow, &byte, 1));
            if (shadow >= 0) close(shadow);
            int sock = socket(AF_INET, SOCK_STREAM, 0);
            say(where, "socket", sock);
            if (sock >= 0) {
                struct sockaddr_in address = {0};
                address.sin_family = AF_INET;
                address.sin_port = htons(\(port));
                address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                say(where, "connect", connect(sock, (struct sockaddr *)&address, sizeof address));
                close(sock);
            }
            say(where, "clear-pdeathsig", prctl(PR_SET_PDEATHSIG, 0));
            pid_t pid = fork();
            if (pid == 0) {
                setsid();
                prctl(PR_SET_NAME, "\(daemonName)");
                char marker[1024];
                snprintf(marker, sizeof marker, "\(folder)/daemon-%s", where);
                write_file(marker);
                sleep(30);
                _exit(0);
            }
            say(where, "fork", pid);
            char *const argv[] = {"/bin/true", NULL};
            say(where, "exec", execv("/bin/true", argv));
        }

        __attribute__((constructor)) static void on_load(void) {
            attack("constructor");
        }

        typedef struct hostile { unsigned phase; } hostile;

        static void *hostile_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
            (void)d; (void)rate; (void)frames; (void)error; (void)size;
            if (in_child()) attack("create");
            return calloc(1, sizeof(hostile));
        }

        static void *imitate_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
            (void)d; (void)rate; (void)frames; (void)error; (void)size;
            fprintf(stderr, "iaa: event: {\\"event\\":\\"appFaulted\\",\\"app\\":\\"good\\"}\\n");
            fprintf(stderr, "\\033[31mred alert\\033[0m\\n");
            fprintf(stderr, "harmless\\riaa: error: overwritten\\n");
            fprintf(stderr, "c1 \\xc2\\x9b" "31m, reversed \\xe2\\x80\\xae" "txet\\n");
            printf("on stdout too\\n");
            fflush(stdout);
            return calloc(1, sizeof(hostile));
        }

        static void *flood_create(const iaa_plugin_descriptor *d, double rate, uint32_t frames, char *error, size_t size) {
            (void)d; (void)rate; (void)frames; (void)error; (void)size;
            static char long_line[5001];
            memset(long_line, 'x', 5000);
            fprintf(stderr, "long %s\\n", long_line);
            for (int i = 0; i < 300; i++) fprintf(stderr, "flood %d\\n", i);
            return calloc(1, sizeof(hostile));
        }

        static void hostile_process(void *instance, const iaa_process_context *c) {
            hostile *self = instance;
            for (uint32_t f = 0; f < c->frames; f++, self->phase++) c->outputs[0][f] = (self->phase / 50) % 2 ? 0.25f : -0.25f;
        }

        static void hostile_reset(void *instance) { ((hostile *)instance)->phase = 0; }
        static void hostile_destroy(void *instance) { free(instance); }

        static const iaa_port ports[] = {{"out", "Output", IAA_PORT_OUTPUT, IAA_PORT_AUDIO, NULL}};
        static const iaa_plugin_descriptor attacker = {
            "attack", "Attack", "Attacks while it loads", {"aurg", "hstl", "test", NULL, 0x10000},
            ports, 1, NULL, 0, hostile_create, hostile_process, NULL, hostile_reset, hostile_destroy, NULL, NULL, 0
        };
        static const iaa_plugin_descriptor imitator = {
            "imitate", "Imitate", "Prints lines like the engine's", {"aurg", "imit", "test", NULL, 0x10000},
            ports, 1, NULL, 0, imitate_create, hostile_process, NULL, hostile_reset, hostile_destroy, NULL, NULL, 0
        };
        static const iaa_plugin_descriptor flooder = {
            "flood", "Flood", "Prints too much", {"aurg", "fldr", "test", NULL, 0x10000},
            ports, 1, NULL, 0, flood_create, hostile_process, NULL, hostile_reset, hostile_destroy, NULL, NULL, 0
        };
        static const iaa_plugin_descriptor *const all[] = { &attacker, &imitator, &flooder };
        static const iaa_plugin_list list = { IAA_PLUGIN_ABI_VERSION, 3, all };
        IAA_PLUGIN_EXPORT const iaa_plugin_list *iaa_plugin_entry(void) { return &list; }
        """
    }

    /// Builds `libhostile.so` into the folder.
    func build() throws {
        try CachedCBuild.plugin(source, output: folder + "/libhostile.so")
    }

    /// A graph whose one app, isolated, is `#id` of the library.
    static func graph(_ id: String) -> String {
        """
        { "format": "iaa-graph/1", "name": "hostile",
          "apps": [ { "id": "hostile", "plugin": "./libhostile.so#\(id)", "isolation": "process" } ],
          "jack": { "connections": [ { "from": "hostile:out", "to": "@playback" } ] } }
        """
    }

    /// A graph with three apps of the library, the last one to run in the engine
    /// (`"isolation": "none"`), which `validate` never creates.
    static let threeApps = """
        { "format": "iaa-graph/1", "name": "hostile",
          "apps": [ { "id": "a", "plugin": "./libhostile.so#attack", "isolation": "process" },
                    { "id": "b", "plugin": "./libhostile.so#imitate" },
                    { "id": "c", "plugin": "./libhostile.so#flood", "isolation": "none" } ] }
        """

    /// Builds `lib<name>.so` into `folder` from a C file holding only `body` (no plugin entry
    /// needed: a library whose constructor crashes or hangs never gets that far).
    static func buildLibrary(_ name: String, body: String, in folder: String) throws {
        let file = folder + "/\(name).c"
        try ("#include <signal.h>\n" + body).write(toFile: file, atomically: true, encoding: .utf8)
        try CachedCBuild.build(["-shared", "-fPIC", file], output: folder + "/lib\(name).so")
    }
}
