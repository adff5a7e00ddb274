/* qf-network-page.h — step 3: the interface under test and the helper machine (src/ui). */
#pragma once

#include <adwaita.h>

#include "qf-netifaces.h"

G_BEGIN_DECLS

#define QF_TYPE_NETWORK_PAGE (qf_network_page_get_type ())
G_DECLARE_FINAL_TYPE (QfNetworkPage, qf_network_page, QF, NETWORK_PAGE, AdwBin)

/* The chosen interface or NULL. Borrowed. */
QfNetIface *qf_network_page_get_iface        (QfNetworkPage *self);
/* The network audit of the chosen interface as the page shows it (QfNetAuditCheck), or NULL
 * while none is shown. Borrowed. */
GPtrArray  *qf_network_page_get_network_audit (QfNetworkPage *self);
/* TRUE while the network audit of the chosen interface runs; notified as "audit-running". */
gboolean    qf_network_page_get_audit_running (QfNetworkPage *self);
/* TRUE once a peer is chosen: a helper machine's address (found, typed or remembered), or the
 * built-in peer set explicitly ("This PC only"); notified as "peer-chosen". */
gboolean    qf_network_page_get_peer_chosen  (QfNetworkPage *self);
/* "builtin" ("This PC only"), "remote" (an address was typed) or "none". */
const char *qf_network_page_get_peer_kind    (QfNetworkPage *self);
const char *qf_network_page_get_peer_address (QfNetworkPage *self);
/* The ports the helper machine chosen from the list announced, while the address row holds its
 * address; else the defaults (QF_PEER_DEFAULT_*: a typed address, the built-in peer). */
void        qf_network_page_get_peer_ports   (QfNetworkPage *self,
                                              guint16       *latency_port,
                                              guint16       *bandwidth_port);
/* The helper machine's access token file (`serve --token-file`), or NULL: none typed, or the
 * built-in peer. */
const char *qf_network_page_get_token_file   (QfNetworkPage *self);
/* The pairing code typed for the helper machine (memory only, never saved), or NULL: none
 * typed, the helper asks for none, or the built-in peer. As typed; qf_pairing_code_to_token
 * judges it. */
const char *qf_network_page_get_pairing_code (QfNetworkPage *self);
/* Training against an emulated link: "This PC only" is chosen and cannot be switched off. */
void        qf_network_page_set_builtin_only (QfNetworkPage *self,
                                              gboolean       only);

G_END_DECLS
