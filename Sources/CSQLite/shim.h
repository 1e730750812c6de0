#ifndef IAA_CSQLITE_SHIM_H
#define IAA_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
