#ifndef IAA_CSNDFILE_SHIM_H
#define IAA_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
