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
 *                      qualifyd (the group qualify, polkit, or polkit after an administrator's
 *                      password: WARN), rtkit (priority limited to its maximum: WARN), or none
 *                      (FAIL: an rt result would be invalid)
 *   privilege.memlock  root, CAP_IPC_LOCK, an unlimited RLIMIT_MEMLOCK, qualifyd, or a limited
 *                      one (WARN)
 *   privilege.icmp     raw sockets (root, CAP_NET_RAW, qualifyd: pings every millisecond),
 *                      datagram ICMP sockets (net.ipv4.ping_group_range: every 2 ms at most, WARN),
 *                      or none (FAIL)
 * Every advice names the exact fix: `sudo adduser USER qualify` with the user's login name, or
 * root.
 *
 * It opens and closes ICMP sockets (no packet is sent) and may wait up to a few seconds for
 * qualifyd and rtkit on the system bus (asking nobody for a password): call it from a worker
 * thread (GTask), never from the main loop.
 */
#pragma once

#include <glib.h>

#include "qf-audit.h"

G_BEGIN_DECLS

GPtrArray *qf_privileges_check           (void);

/* What this process may do by itself, without asking qualifyd or rtkit: SCHED_FIFO at
 * `priority` (CAP_SYS_NICE or RLIMIT_RTPRIO), mlockall of any size (CAP_IPC_LOCK or an unlimited
 * RLIMIT_MEMLOCK), raw sockets (CAP_NET_RAW). Root has all three through its capabilities. */
gboolean   qf_privileges_can_set_rt      (int priority);
gboolean   qf_privileges_can_lock_memory (void);
gboolean   qf_privileges_has_net_raw     (void);

G_END_DECLS
