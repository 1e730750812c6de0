/* Placeholder: the plugin ABI header is being written (issue 5). */
#ifndef IAA_PLUGIN_H
#define IAA_PLUGIN_H
#define IAA_PLUGIN_ABI_VERSION 1
#endif
