/* qf-daemon-icmp.h — a raw ICMP socket for a caller's ping (src/daemon; docs/privileges.md).
 *
 * The socket is made in the daemon's network namespace (the host's) and passed to the caller
 * over the bus; the caller's ping engine sets its options. It can send any ICMP message and
 * reads every ICMP packet of the host, as long as the caller keeps it: that is what
 * CAP_NET_RAW gives ping too, and why only authorised callers get one. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ip_version 4 (ICMP) or 6 (ICMPv6); close-on-exec. -1 with QF_DAEMON_ERROR set. */
int qf_daemon_open_icmp_socket (guint32   ip_version,
                                GError  **error);

G_END_DECLS
