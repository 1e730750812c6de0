// liblo, the OSC library New Session Manager speaks through, for Swift: the argument union's
// string member is a flexible char array, which Swift cannot take the address of.
#include <lo/lo.h>

static inline const char *CLiblo_argString(lo_arg **argv, int index) { return &argv[index]->s; }
static inline int32_t CLiblo_argInt(lo_arg **argv, int index) { return argv[index]->i; }
