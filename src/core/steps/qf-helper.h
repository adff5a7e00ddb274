/* qf-helper.h — this machine as the helper machine, for the wizard's helper page (src/core).
 *
 * Runs the same services as `qualify-cli serve` (qf-peer-services.h: latency, cycle and
 * bandwidth) on the default ports on every address, announces them for discovery, and, when
 * asked, requires a pairing code (qf-pairing.h) that it draws itself and keeps in memory only.
 * The page reads the machine's name, the code, the ports and the live list of clients.
 *
 * Main thread only. The "failed" signal (const char *message) is emitted on the main context
 * that called start when a service thread ends with an error; the services are stopped by then
 * only by qf_helper_stop, which the page calls. Disposing the object stops everything. */
#pragma once

#include <glib-object.h>

#include "qf-peer-services.h"

G_BEGIN_DECLS

#define QF_HELPER_ERROR (qf_helper_error_quark ())
GQuark qf_helper_error_quark (void);

typedef enum
{
  QF_HELPER_ERROR_PORT_IN_USE,   /* another program holds a port (the message names it) */
  QF_HELPER_ERROR_NO_INTERFACE,  /* no network interface is up except loopback */
  QF_HELPER_ERROR_FAILED,        /* anything else, said in the message */
} QfHelperError;

#define QF_TYPE_HELPER (qf_helper_get_type ())
G_DECLARE_FINAL_TYPE (QfHelper, qf_helper, QF, HELPER, GObject)

QfHelper   *qf_helper_new                (void);
/* Binds QF_PEER_DEFAULT_LATENCY_PORT and QF_PEER_DEFAULT_BANDWIDTH_PORT on every address,
 * starts the services and the announcer; with require_code draws a new pairing code first.
 * FALSE with a QF_HELPER_ERROR whose message says the cause and the fix. */
gboolean    qf_helper_start              (QfHelper  *self,
                                          gboolean   require_code,
                                          GError   **error);
/* Whether the next start announces the helper for discovery (DNS-SD); TRUE by default. Off
 * for sites that forbid multicast: the other PC then types this machine's address. */
void        qf_helper_set_announce       (QfHelper  *self,
                                          gboolean   announce);
/* Whether other PCs find this helper by discovery now; when not, *why_not (may be NULL) says
 * why in a translated phrase ("discovery is turned off in the settings", or the announcer's
 * own reason such as port 5353 taken), owned by self and valid until the next stop or start. */
gboolean    qf_helper_is_announcing      (QfHelper     *self,
                                          const char  **why_not);
/* Stops every service and forgets the code. Nothing keeps running after it. */
void        qf_helper_stop               (QfHelper  *self);
gboolean    qf_helper_is_running         (QfHelper  *self);
/* The pairing code grouped for reading, while running with require_code; else NULL. */
const char *qf_helper_get_code           (QfHelper  *self);
/* This machine's name for people: its pretty host name, else its host name. */
const char *qf_helper_get_name           (QfHelper  *self);
/* The ports in use while running; 0 when stopped. */
guint16     qf_helper_get_latency_port   (QfHelper  *self);
guint16     qf_helper_get_bandwidth_port (QfHelper  *self);
/* The clients served now (GPtrArray of QfPeerClient, free func set; empty when stopped). */
GPtrArray  *qf_helper_list_clients       (QfHelper  *self);

G_END_DECLS
