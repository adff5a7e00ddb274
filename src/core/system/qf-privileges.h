/* qf-privileges.h — which way this process gets the rights the measurements need (src/core).
 *
 * The real-time test needs SCHED_FIFO priority and locked memory, the ping test an ICMP socket.
 * docs/privileges.md describes the ways to grant them without running the wizard as root; this
 * module finds out which one works for the calling process and says so in the same shape as the
 * readiness audit, so the System check page and `qualify-cli sysinfo` list them with its rows:
 *
 *   g_autoptr(GPtrArray) checks = qf_privileges_check ();   // element-type QfAuditCheck*
 *
 * Check ids, in the order returned:
 *   privilege.rt       root, CAP_SYS_NICE (file capabilities), RLIMIT_RTPRIO (a limits.d rule),
 *                      rtkit (priority limited to its maximum), or none (FAIL: an rt result would
 *                      be invalid)
 *   privilege.memlock  root, CAP_IPC_LOCK, an unlimited RLIMIT_MEMLOCK, or a limited one (WARN)
 *   privilege.icmp     datagram ICMP sockets (net.ipv4.ping_group_range), raw ones (CAP_NET_RAW),
 *                      or none (FAIL)
 * Every advice names the exact fix, with this program's own path in the setcap command.
 *
 * It opens and closes ICMP sockets (no packet is sent) and may wait up to one second for rtkit
 * on the system bus: call it from a worker thread (GTask), never from the main loop.
 */
#pragma once

#include <glib.h>

#include "qf-audit.h"

G_BEGIN_DECLS

GPtrArray *qf_privileges_check (void);

G_END_DECLS
