#ifndef IAA_CJACK_SHIM_H
#define IAA_CJACK_SHIM_H
#include <jack/jack.h>
#include <jack/metadata.h>
#include <jack/ringbuffer.h>
#include <jack/midiport.h>
#include <jack/thread.h>
#include <jack/transport.h>
#include <jack/uuid.h>

/* jack_client_open is variadic, which Swift cannot call: this fixes its one optional argument. */
static inline jack_client_t *CJack_client_open(const char *name, jack_options_t options,
                                               jack_status_t *status, const char *server_name) {
    if (server_name != NULL && server_name[0] != '\0')
        return jack_client_open(name, (jack_options_t)(options | JackServerName), status, server_name);
    return jack_client_open(name, options, status);
}

/* JackPortIsInput and friends are enum constants; hand them to Swift as plain flags. */
static inline unsigned long CJack_port_is_input(void) { return JackPortIsInput; }
static inline unsigned long CJack_port_is_output(void) { return JackPortIsOutput; }
static inline unsigned long CJack_port_is_physical(void) { return JackPortIsPhysical; }
static inline const char *CJack_default_audio_type(void) { return JACK_DEFAULT_AUDIO_TYPE; }
static inline const char *CJack_default_midi_type(void) { return JACK_DEFAULT_MIDI_TYPE; }
static inline const char *CJack_pretty_name_key(void) { return JACK_METADATA_PRETTY_NAME; }
static inline const char *CJack_port_group_key(void) { return JACK_METADATA_PORT_GROUP; }
static inline const char *CJack_order_key(void) { return JACK_METADATA_ORDER; }
static inline const char *CJack_signal_type_key(void) { return JACK_METADATA_SIGNAL_TYPE; }
#endif
