/* LD_PRELOAD counter for the real-time safety test: counts heap allocations and Swift retains
 * made by a thread while it is armed. The engine arms it around every audio cycle when
 * IAA_RT_PROBE=1 (see Sources/RenderCore/RealtimeProbe.swift).
 * Build: cc -O2 -shared -fPIC -o librtcounter.so tools/rt-counter.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

static _Atomic long allocations, retains;
static __thread int armed;

void rt_arm(int on) { armed = on; }
long rt_mallocs(void) { return allocations; }
long rt_retains(void) { return retains; }

typedef void *(*alloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef int (*memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_fn)(size_t, size_t);
typedef void *(*retain_fn)(void *);
typedef void *(*retain_n_fn)(void *, unsigned);

#define REAL(var, type, name) static type var; if (!var) var = (type)dlsym(RTLD_NEXT, name)
#define COUNT(counter) if (armed) atomic_fetch_add(&counter, 1)

void *malloc(size_t n) { REAL(real, alloc_fn, "malloc"); COUNT(allocations); return real(n); }
void *calloc(size_t n, size_t s) {
    /* dlsym itself may calloc before `real` is known: serve that from a static buffer. */
    static char early[4096]; static size_t used; static int resolving;
    static calloc_fn real;
    if (!real) {
        if (resolving) { void *p = early + used; used += (n * s + 15) & ~(size_t)15; return p; }
        resolving = 1; real = (calloc_fn)dlsym(RTLD_NEXT, "calloc"); resolving = 0;
    }
    COUNT(allocations); return real(n, s);
}
void *realloc(void *p, size_t n) { REAL(real, realloc_fn, "realloc"); COUNT(allocations); return real(p, n); }
int posix_memalign(void **p, size_t a, size_t n) { REAL(real, memalign_fn, "posix_memalign"); COUNT(allocations); return real(p, a, n); }
void *aligned_alloc(size_t a, size_t n) { REAL(real, aligned_fn, "aligned_alloc"); COUNT(allocations); return real(a, n); }
void *swift_retain(void *o) { REAL(real, retain_fn, "swift_retain"); COUNT(retains); return real(o); }
void *swift_retain_n(void *o, unsigned n) { REAL(real, retain_n_fn, "swift_retain_n"); COUNT(retains); return real(o, n); }
void *swift_bridgeObjectRetain(void *o) { REAL(real, retain_fn, "swift_bridgeObjectRetain"); COUNT(retains); return real(o); }
void *swift_unknownObjectRetain(void *o) { REAL(real, retain_fn, "swift_unknownObjectRetain"); COUNT(retains); return real(o); }
