/* qf-trace-parse.h — the kernel's binary trace, read (src/engine).
 *
 * Two inputs, both as the kernel writes them: the text of the event formats
 * (events/SYS/NAME/format, events/header_page), which say where each field of a record lies on
 * this kernel, and the pages of trace_pipe_raw (one ring-buffer sub-buffer each: a time stamp, a
 * commit word, then records of a 32-bit header — type_len 5 bits, time delta 27 — and data).
 * Nothing is assumed about field offsets: they are read from the formats, so the parser follows
 * the kernel (e.g. sched_migrate_task's comm became a __data_loc string in 6.x).
 *
 * Robust against any bytes: every length is checked against the page, a malformed page ends with
 * FALSE after the records before the fault, and nothing is read outside the buffers given.
 * tests/fuzz/fuzz-trace-parse.c feeds it random formats and pages.
 *
 * Pure functions of their input; no global state; any thread.
 */
#pragma once

#include "qf-trace.h"

G_BEGIN_DECLS

typedef struct QfTraceFormats QfTraceFormats;

/* Parses the header page's and the events' format texts. formats[i] is the text of
 * qf_trace_event_names[i], or NULL when the kernel lacks that event. */
QfTraceFormats *qf_trace_formats_new       (const char        *header_page,
                                            const char *const  formats[QF_TRACE_N_EVENTS],
                                            GError           **error);
/* The same, read from the descriptors (pread from offset 0: the descriptors stay usable). */
QfTraceFormats *qf_trace_formats_read      (const QfTraceFds  *fds,
                                            GError           **error);
void            qf_trace_formats_free      (QfTraceFormats    *formats);
/* Bytes of one page as trace_pipe_raw hands it out (header and data). */
gsize           qf_trace_formats_page_size (const QfTraceFormats *formats);
/* Whether the kernel has the event of that kind. */
gboolean        qf_trace_formats_has       (const QfTraceFormats *formats,
                                            QfTraceEventKind      kind);

typedef void (*QfTraceEmitFunc) (const QfTraceEvent *event,
                                 gpointer            user_data);

/* Parses one page read from CPU cpu's trace_pipe_raw (len bytes, at most the page size) and
 * calls emit for each record of a kind this parser keeps, in the page's order (time order).
 * *lost is set to the records the kernel dropped before this page (0 none, G_MAXUINT64 when
 * it says some were dropped but not how many). Returns FALSE when the page is malformed; the
 * records before the fault were emitted. */
gboolean        qf_trace_parse_page        (const QfTraceFormats *formats,
                                            guint                 cpu,
                                            const guint8         *page,
                                            gsize                 len,
                                            QfTraceEmitFunc       emit,
                                            gpointer              user_data,
                                            guint64              *lost);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfTraceFormats, qf_trace_formats_free)

G_END_DECLS
