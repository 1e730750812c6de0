#include "iaa_plugin.h"
/* The ABI version this engine was built with, for diagnostics. */
const unsigned iaa_engine_plugin_abi_version = IAA_PLUGIN_ABI_VERSION;
