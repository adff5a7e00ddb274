/* qf-daemon-trace.h — a kernel-trace instance for a caller (src/daemon; docs/privileges.md).
 *
 * OpenTrace: qualifyd makes the tracefs instance `instances/qualify-<caller's pid>-<n>` through
 * qf-tracefs (the engine's only privileged part, the one piece of the engine qualifyd links),
 * with its fixed list of tracepoints, clock and bounded buffer — nothing of it comes from the
 * request — and hands the caller the descriptors a reader needs: each CPU's trace_pipe_raw
 * (read only), the instance's trace_marker (write only), events/header_page and the event
 * formats (read only). Not the instance's control files: the caller cannot add events, turn on
 * a tracer, grow the buffer or touch the top-level trace. The narrower of the two ways (the
 * other: qualifyd records and sends the events), because qualifyd then parses nothing a caller
 * or the kernel wrote and runs no thread per caller, and the caller sees exactly what it would
 * see tracing as root.
 *
 * One instance per caller, QF_DAEMON_MAX_TRACES in all (each holds buffer × CPUs of kernel
 * memory). CloseTrace, or the caller leaving the bus, removes it; an instance whose process
 * still holds its descriptors cannot be removed (the kernel refuses), and the next open removes
 * it once that process has ended (its pid is in the name).
 *
 * Main thread only. */
#pragma once

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#include "qf-daemon-caller.h"

G_BEGIN_DECLS

#define QF_DAEMON_MAX_TRACES 4
/* The kernel passes at most 253 descriptors in one message (SCM_MAX_FD). */
#define QF_DAEMON_TRACE_MAX_CPUS 240

/* The reply (a{sv} info, h marker, h header_page, a{sh} formats, ah cpus) with its descriptors
 * in fds; NULL with error. */
GVariant *qf_daemon_open_trace  (QfCaller     *caller,
                                 GUnixFDList  *fds,
                                 GError      **error);
/* Removes the caller's instance (its descriptors must be closed first). */
gboolean  qf_daemon_close_trace (QfCaller     *caller,
                                 GError      **error);

G_END_DECLS
