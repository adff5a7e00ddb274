/* qf-helper-private.h — QfHelper's pieces that tests reach (src/core). */
#pragma once

#include "qf-helper.h"

G_BEGIN_DECLS

/* qf_helper_start on these ports (0: a free one) and this address (NULL: every address). With
 * a loopback address the interface check and the announcement are left out (a test on lo). */
gboolean _qf_helper_start_on_ports    (QfHelper    *self,
                                       gboolean     require_code,
                                       const char  *bind_address,
                                       guint16      latency_port,
                                       guint16      bandwidth_port,
                                       GError     **error);
/* Whether a socket of this machine listens on (TCP) or is bound to (UDP) port; *owner: the
 * program that holds it ("iperf3 -s (process 812)") when /proc says, else NULL. */
gboolean _qf_helper_port_holder       (guint16      port,
                                       char       **owner);
/* FALSE with QF_HELPER_ERROR_NO_INTERFACE when no interface below sys_class_net (normally
 * "/sys/class/net") other than loopback is up. */
gboolean _qf_helper_check_interfaces  (const char  *sys_class_net,
                                       GError     **error);

G_END_DECLS
