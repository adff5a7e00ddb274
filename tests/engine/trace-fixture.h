/* trace-fixture.h — the event formats of a real kernel (Linux 6.18, x86_64), for the parser's
 * tests and fuzz target: the header page and the format of each event of qf_trace_event_names,
 * as tracefs printed them (their "print fmt" lines left out: the parser does not read them). */
#pragma once

#include "qf-trace.h"

static const char trace_fixture_header_page[] =
  "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char *const trace_fixture_formats[QF_TRACE_N_EVENTS] = {
  "name: sched_switch\n"
  "ID: 372\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: sched_waking\n"
  "ID: 375\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: sched_wakeup\n"
  "ID: 374\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: irq_handler_entry\n"
  "ID: 225\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: irq_handler_exit\n"
  "ID: 224\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: softirq_entry\n"
  "ID: 223\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: softirq_exit\n"
  "ID: 222\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: hrtimer_expire_entry\n"
  "ID: 459\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
  "\tfield:s64 now;\toffset:16;\tsize:8;\tsigned:1;\n"
  "\tfield:void * function;\toffset:24;\tsize:8;\tsigned:0;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: hrtimer_expire_exit\n"
  "ID: 458\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
  "\n"
  "print fmt: (left out)\n",
  "name: print\n"
  "ID: 5\n"
  "format:\n"
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
  "\n"
  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
  "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
  "\n"
  "print fmt: (left out)\n",
};

/* Pages as the kernel's ring buffer writes them, for the tests: records of the fixture's
 * formats (their IDs and offsets above), time deltas in the record headers, a time extend
 * when a delta needs more than 27 bits. */

#include <string.h>

#define TRACE_FIXTURE_PAGE_SIZE 4096
#define TRACE_FIXTURE_DATA      16

static const guint16 trace_fixture_ids[QF_TRACE_N_EVENTS] = {
  372, 375, 374, 225, 224, 223, 222, 459, 458, 5,
};

typedef struct
{
  guint8  page[TRACE_FIXTURE_PAGE_SIZE];
  gsize   used;               /* data bytes */
  guint64 first_ts, last_ts;
  gboolean any;
} TracePage;

static inline void
trace_page_reset (TracePage *p)
{
  memset (p, 0, sizeof *p);
}

static inline void
put32 (guint8 *at, guint32 v)
{
  memcpy (at, &v, 4);
}

static inline void
put64 (guint8 *at, guint64 v)
{
  memcpy (at, &v, 8);
}

/* The record's data (common fields first) for ev, in out (≥ 128 bytes); its length. */
static inline gsize
trace_record_encode (const QfTraceEvent *ev,
                     guint8             *out)
{
  gsize len = 8;

  memset (out, 0, 128);
  out[0] = trace_fixture_ids[ev->kind] & 0xff;
  out[1] = trace_fixture_ids[ev->kind] >> 8;
  put32 (out + 4, (guint32) ev->pid);
  switch (ev->kind)
    {
    case QF_TRACE_EV_SWITCH:
      memcpy (out + 8, ev->sw.prev_comm, 16);
      put32 (out + 24, (guint32) ev->sw.prev_pid);
      put32 (out + 28, (guint32) ev->sw.prev_prio);
      put64 (out + 32, (guint64) ev->sw.prev_state);
      memcpy (out + 40, ev->sw.next_comm, 16);
      put32 (out + 56, (guint32) ev->sw.next_pid);
      put32 (out + 60, (guint32) ev->sw.next_prio);
      len = 64;
      break;
    case QF_TRACE_EV_WAKING:
    case QF_TRACE_EV_WAKEUP:
      memcpy (out + 8, ev->wake.comm, 16);
      put32 (out + 24, (guint32) ev->wake.pid);
      put32 (out + 28, (guint32) ev->wake.prio);
      put32 (out + 32, (guint32) ev->wake.target_cpu);
      len = 36;
      break;
    case QF_TRACE_EV_IRQ_ENTRY:
      {
        gsize n = strlen (ev->irq.name) + 1;
        put32 (out + 8, (guint32) ev->irq.irq);
        put32 (out + 12, (guint32) (16 | (n << 16)));
        memcpy (out + 16, ev->irq.name, n);
        len = 16 + n;
      }
      break;
    case QF_TRACE_EV_IRQ_EXIT:
      put32 (out + 8, (guint32) ev->irq.irq);
      put32 (out + 12, 1);
      len = 16;
      break;
    case QF_TRACE_EV_SOFTIRQ_ENTRY:
    case QF_TRACE_EV_SOFTIRQ_EXIT:
      put32 (out + 8, ev->softirq.vec);
      len = 12;
      break;
    case QF_TRACE_EV_TIMER_ENTRY:
      put64 (out + 8, ev->timer.hrtimer);
      put64 (out + 16, (guint64) ev->timer.now_ns);
      put64 (out + 24, ev->timer.function);
      len = 32;
      break;
    case QF_TRACE_EV_TIMER_EXIT:
      put64 (out + 8, ev->timer.hrtimer);
      len = 16;
      break;
    case QF_TRACE_EV_MARK:
      {
        char line[96];
        int n = g_snprintf (line, sizeof line, QF_TRACE_MARK_PREFIX " start=%lld latency=%lld\n",
                            (long long) ev->mark.start_ns, (long long) ev->mark.latency_ns);
        put64 (out + 8, 0xffffffff81000000ull);
        memcpy (out + 16, line, (gsize) n + 1);
        len = 16 + (gsize) n + 1;
      }
      break;
    default:
      break;
    }
  return len;
}

/* Appends a record of data (len bytes) at ts; FALSE when the page is full. */
static inline gboolean
trace_page_add (TracePage    *p,
                guint64       ts,
                const guint8 *data,
                gsize         len)
{
  gsize padded = (len + 3) & ~(gsize) 3;
  gboolean small = padded <= 28 * 4;
  gsize need = (small ? 4 : 8) + padded;
  guint64 delta;
  guint8 *at;

  if (!p->any)
    {
      p->first_ts = p->last_ts = ts;
      p->any = TRUE;
    }
  delta = ts - p->last_ts;
  if (delta >= (1u << 27))
    need += 8;
  if (TRACE_FIXTURE_DATA + p->used + need > TRACE_FIXTURE_PAGE_SIZE)
    return FALSE;
  at = p->page + TRACE_FIXTURE_DATA + p->used;
  if (delta >= (1u << 27))
    {
      put32 (at, 30 | (guint32) ((delta & ((1u << 27) - 1)) << 5));
      put32 (at + 4, (guint32) (delta >> 27));
      at += 8;
      p->used += 8;
      delta = 0;
    }
  if (small)
    {
      put32 (at, (guint32) (padded / 4) | (guint32) (delta << 5));
      memcpy (at + 4, data, len);
      p->used += 4 + padded;
    }
  else
    {
      put32 (at, (guint32) (delta << 5));
      put32 (at + 4, (guint32) (padded + 4));
      memcpy (at + 8, data, len);
      p->used += 8 + padded;
    }
  p->last_ts = ts;
  return TRUE;
}

/* Fills the page header; the page is TRACE_FIXTURE_PAGE_SIZE bytes. lost: records dropped
 * before it (0 none). */
static inline void
trace_page_finish (TracePage *p,
                   guint64    lost)
{
  guint64 commit = p->used;

  if (lost > 0 && TRACE_FIXTURE_DATA + p->used + 8 <= TRACE_FIXTURE_PAGE_SIZE)
    {
      commit |= (1ull << 31) | (1ull << 30);
      put64 (p->page + TRACE_FIXTURE_DATA + p->used, lost);
    }
  put64 (p->page, p->first_ts);
  put64 (p->page + 8, commit);
}
