/* fuzz-trace-parse.c — the kernel-trace reader (src/engine/qf-trace-parse.c,
 * qf-trace-recorder.c, qf-trace-analysis.c) on arbitrary bytes. The first byte chooses:
 * even: the rest is trace_pipe_raw pages of a Linux 6.18 kernel (its formats from
 * tests/engine/trace-fixture.h), fed to a recorder for CPUs 0 and 1 in turn; every spike it
 * keeps is explained, and the explanation must partition the spike exactly;
 * odd: the rest is the format text of one event (chosen by the second byte), read with the
 * fixture's other formats, and a valid page is then parsed with them. */
#include <stdint.h>
#include <string.h>

#include "qf-trace-analysis.h"
#include "qf-trace-parse.h"
#include "qf-trace-recorder.h"
#include "../engine/trace-fixture.h"

static void
check (const QfTraceSpike *spike)
{
  g_autoptr(QfSpikeAnalysis) a = qf_trace_analyze (spike, spike->cpu % 2 ? QF_SPIKE_WAIT_TIMER
                                                                        : QF_SPIKE_WAIT_REPLY, 0,
                                                   spike->cpu % 4 < 2 ? QF_SPIKE_BARE_METAL
                                                                      : QF_SPIKE_VIRTUAL_MACHINE);
  gint64 sum = 0, at = 0;

  for (guint i = 0; i < a->n_items; i++)
    {
      g_assert_cmpint (a->items[i].duration_ns, >, 0);
      sum += a->items[i].duration_ns;
    }
  g_assert_cmpint (sum, ==, a->latency_ns);
  for (guint i = 0; i < a->n_segments; i++)
    {
      g_assert_cmpint (a->segments[i].offset_ns, ==, at);
      g_assert_cmpuint (a->segments[i].item, <, a->n_items);
      at += a->segments[i].duration_ns;
    }
  g_assert_cmpint (at, ==, a->latency_ns);
}

static void
pages (const uint8_t *data,
       size_t         size)
{
  g_autoptr(GError) error = NULL;
  QfTraceFormats *f = qf_trace_formats_new (trace_fixture_header_page, trace_fixture_formats, &error);
  QfTraceRecorderConfig config = { .n_worst = 4, .window_bytes = 1 };
  g_autoptr(QfTraceRecorder) rec = qf_trace_recorder_new_for_pages (f, 2, &config);

  for (size_t off = 0, n = 0; off < size; off += TRACE_FIXTURE_PAGE_SIZE, n++)
    qf_trace_recorder_feed_page (rec, n % 2, data + off, MIN (size - off, TRACE_FIXTURE_PAGE_SIZE));
  qf_trace_recorder_flush (rec);
  for (guint i = 0; i < qf_trace_recorder_n_spikes (rec); i++)
    check (qf_trace_recorder_spike (rec, i));
}

static void
collect (const QfTraceEvent *ev,
         gpointer            user_data)
{
  (*(guint *) user_data)++;
}

static void
format (const uint8_t *data,
        size_t         size)
{
  const char *formats[QF_TRACE_N_EVENTS];
  g_autofree char *text = g_strndup ((const char *) data + 1, size - 1);
  g_autoptr(QfTraceFormats) f = NULL;
  TracePage page;
  guint8 record[128];
  QfTraceEvent ev;
  guint64 lost;
  guint n = 0;

  memcpy (formats, trace_fixture_formats, sizeof formats);
  formats[data[0] % QF_TRACE_N_EVENTS] = text;
  f = qf_trace_formats_new (trace_fixture_header_page, formats, NULL);
  if (f == NULL)
    return;
  trace_page_reset (&page);
  for (guint k = 0; k < QF_TRACE_N_EVENTS; k++)
    {
      memset (&ev, 0, sizeof ev);
      ev.kind = k;
      ev.ts_ns = 1000 * (k + 1);
      g_strlcpy (ev.irq.name, "eth0", sizeof ev.irq.name);
      trace_page_add (&page, (guint64) ev.ts_ns, record, trace_record_encode (&ev, record));
    }
  trace_page_finish (&page, 0);
  qf_trace_parse_page (f, 0, page.page, sizeof page.page, collect, &n, &lost);
  g_assert_cmpuint (n, <=, QF_TRACE_N_EVENTS);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  if (size < 2)
    return 0;
  if (data[0] % 2 == 0)
    pages (data + 1, size - 1);
  else
    format (data + 1, size - 1);
  return 0;
}
