/* test-procstat.c — the /proc readers against two fixture snapshots with known rates: CPU split,
 * disk rates as iostat -x, net rates as sar -n DEV, 32- and 64-bit counter wrap, a disk and an
 * interface that appear between snapshots, partitions and unused devices left out, processes that
 * start and exit. The files are rewritten in place, so the reader's open descriptors must re-read
 * from offset 0 to see the second snapshot. */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "qf-procstat.h"

typedef struct
{
  char  *root;
  gint64 now_ns;
} Fixture;

static gint64
fake_now (gpointer user_data)
{
  return ((Fixture *) user_data)->now_ns;
}

/* Writes content into root/relpath on the same inode (truncate + write), creating dirs. */
static void
put (Fixture    *fx,
     const char *relpath,
     const char *content)
{
  g_autofree char *path = g_build_filename (fx->root, relpath, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  int fd;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, content, strlen (content)), ==, (gssize) strlen (content));
  close (fd);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);
        if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static void
fixture_set_up (Fixture       *fx,
                gconstpointer  data)
{
  (void) data;
  fx->root = g_dir_make_tmp ("qf-procstat-XXXXXX", NULL);
  g_assert_nonnull (fx->root);
  fx->now_ns = 1000 * G_GINT64_CONSTANT (1000000000);
}

static void
fixture_tear_down (Fixture       *fx,
                   gconstpointer  data)
{
  (void) data;
  remove_tree (fx->root);
  g_free (fx->root);
}

#define NET_HEADER \
  "Inter-|   Receive                                                |  Transmit\n" \
  " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"

static void
write_snapshot_a (Fixture *fx)
{
  put (fx, "proc/stat",
       "cpu  1000 0 500 8000 500 0 0 0 0 0\n"
       "cpu0 500 0 250 4000 250 0 0 0 0 0\n"
       "cpu1 500 0 250 4000 250 0 0 0 0 0\n"
       "intr 12345 0 0\n"
       "ctxt 999\n");
  put (fx, "proc/loadavg", "0.50 0.40 0.30 1/100 1234\n");
  put (fx, "proc/meminfo",
       "MemTotal:        1000000 kB\n"
       "MemFree:          400000 kB\n"
       "MemAvailable:     600000 kB\n"
       "Buffers:           10000 kB\n"
       "Cached:           150000 kB\n"
       "SwapCached:            0 kB\n"
       "Shmem:              5000 kB\n"
       "SReclaimable:      20000 kB\n"
       "SwapTotal:        500000 kB\n"
       "SwapFree:         500000 kB\n");
  /* sda1 is a partition (no sys/block/sda1), loop0 never did I/O; vdb is near the 32-bit wrap of
   * rd_ios and io_ticks; sdc does not exist yet. The sda line has the 5.5+ discard+flush fields,
   * vdb the old 11 counters. */
  put (fx, "proc/diskstats",
       "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
       "   8       0 sda 100 10 2000 50 200 20 4000 400 0 300 450 0 0 0 0 0 0\n"
       "   8       1 sda1 90 10 1800 45 190 20 3900 390 0 290 440 0 0 0 0 0 0\n"
       " 253      16 vdb 4294967290 0 100 10 0 0 0 0 0 4294967000 20\n");
  put (fx, "proc/net/dev",
       NET_HEADER
       "    lo:    1000      10    0    0    0     0          0         0 18446744073709550592      10    0    0    0     0       0          0\n"
       "  eth0: 4294966272     100    0    0    0     0          0         0     5000      50    0    0    0     0       0          0\n");
  put (fx, "proc/100/stat",
       "100 (worker) S 1 100 100 0 -1 4194560 100 0 0 0 300 100 0 0 20 0 1 0 50 1000000 250 "
       "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
  put (fx, "proc/150/stat",
       "150 (short lived) S 1 150 150 0 -1 0 0 0 0 0 900 0 0 0 20 0 1 0 60 1000 10 0 0 0\n");
  put (fx, "proc/200/stat",
       "200 (odd) name) R 1 200 200 0 -1 0 0 0 0 0 10 0 0 0 20 -5 1 0 70 1000 1000 0 0 0\n");
  for (guint i = 0; i < 4; i++)
    {
      const char *disks[] = { "sda", "vdb", "sdc", "loop0" };
      g_autofree char *p = g_strdup_printf ("sys/block/%s/stat", disks[i]);
      put (fx, p, "");
    }
}

static void
write_snapshot_b (Fixture *fx)
{
  g_autofree char *gone = g_build_filename (fx->root, "proc", "150", NULL);

  put (fx, "proc/stat",
       "cpu  1200 0 540 8120 540 0 0 0 0 0\n"
       "cpu0 650 0 270 4020 260 0 0 0 0 0\n"
       "cpu1 550 0 270 4100 280 0 0 0 0 0\n"
       "intr 12399 0 0\n");
  put (fx, "proc/loadavg", "2.50 1.00 0.50 3/120 1300\n");
  put (fx, "proc/meminfo",
       "MemTotal:        1000000 kB\n"
       "MemFree:          300000 kB\n"
       "MemAvailable:     450000 kB\n"
       "Buffers:           10000 kB\n"
       "Cached:           150000 kB\n"
       "SReclaimable:      20000 kB\n"
       "SwapTotal:        500000 kB\n"
       "SwapFree:         400000 kB\n");
  put (fx, "proc/diskstats",
       "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
       "   8       0 sda 140 14 4048 130 260 26 12192 700 1 1300 1950 0 0 0 0 0 0\n"
       "   8       1 sda1 130 14 3848 125 250 26 12092 690 1 1290 1940 0 0 0 0 0 0\n"
       "   8      32 sdc 10 0 80 20 0 0 0 0 0 100 20 0 0 0 0 0 0\n"
       " 253      16 vdb 4 0 180 30 0 0 0 0 0 704 40\n");
  put (fx, "proc/net/dev",
       NET_HEADER
       "    lo:    3048      20    0    0    0     0          0         0     1024      20    0    0    0     0       0          0\n"
       "  eth0:    1024     300    0    0    0     0          0         0    25480      70    0    0    0     0       0          0\n"
       " wlan0:4096 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  put (fx, "proc/100/stat",
       "100 (worker) S 1 100 100 0 -1 4194560 100 0 0 0 400 150 0 0 20 0 1 0 50 1000000 300 "
       "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
  put (fx, "proc/200/stat",
       "200 (odd) name) R 1 200 200 0 -1 0 0 0 0 0 20 0 0 0 20 -5 1 0 70 1000 1000 0 0 0\n");
  put (fx, "proc/300/stat",
       "300 (newcomer) R 1 300 300 0 -1 0 0 0 0 0 30 10 0 0 20 0 1 0 80 1000 2000 0 0 0\n");
  {
    g_autofree char *stat = g_build_filename (gone, "stat", NULL);
    g_unlink (stat);
    g_rmdir (gone);
  }
}

static const QfDiskRates *
disk (QfProcRatesSet *r,
      const char     *name)
{
  for (guint i = 0; i < r->disks->len; i++)
    if (g_str_equal (g_array_index (r->disks, QfDiskRates, i).name, name))
      return &g_array_index (r->disks, QfDiskRates, i);
  return NULL;
}

static const QfNetRates *
net (QfProcRatesSet *r,
     const char     *name)
{
  for (guint i = 0; i < r->nets->len; i++)
    if (g_str_equal (g_array_index (r->nets, QfNetRates, i).name, name))
      return &g_array_index (r->nets, QfNetRates, i);
  return NULL;
}

#define EPS 1e-9

static void
test_two_snapshots (Fixture       *fx,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProcStat) ps = NULL;
  g_autoptr(QfProcSnapshot) a = qf_procstat_snapshot_new ();
  g_autoptr(QfProcSnapshot) b = qf_procstat_snapshot_new ();
  g_autoptr(QfProcRatesSet) r = qf_procstat_rates_new ();
  const QfDiskRates *d;
  const QfNetRates *n;
  const QfCpuPct *c;
  guint64 page_kb = (guint64) sysconf (_SC_PAGESIZE) / 1024;

  (void) data;
  write_snapshot_a (fx);
  ps = qf_procstat_new (fx->root, QF_PROCSTAT_ALL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (qf_procstat_n_cpus (ps), ==, 2);
  qf_procstat_set_clock (ps, fake_now, fx);

  g_assert_true (qf_procstat_read (ps, a, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (a->disks->len, ==, 2);   /* sda, vdb: no partition, no unused loop0 */
  g_assert_cmpuint (a->nets->len, ==, 2);
  g_assert_cmpuint (a->procs->len, ==, 3);
  g_assert_cmpint (g_array_index (a->procs, QfProcCounters, 2).pid, ==, 200);
  g_assert_cmpstr (g_array_index (a->procs, QfProcCounters, 2).comm, ==, "odd) name");
  g_assert_cmpuint (a->mem_available_kb, ==, 600000);
  g_assert_cmpfloat_with_epsilon (a->load1, 0.5, EPS);

  write_snapshot_b (fx);
  fx->now_ns += 2 * G_GINT64_CONSTANT (1000000000);   /* exactly 2 s later */
  g_assert_true (qf_procstat_read (ps, b, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (b->load1, 2.5, EPS);
  g_assert_cmpuint (b->runnable, ==, 3);
  g_assert_cmpuint (b->threads, ==, 120);
  g_assert_cmpuint (b->mem_available_kb, ==, 450000);
  g_assert_cmpuint (b->swap_free_kb, ==, 400000);
  g_assert_cmpuint (b->shmem_kb, ==, 0);   /* missing in the second meminfo */

  qf_procstat_rates (a, b, 100, r);
  g_assert_cmpfloat_with_epsilon (r->elapsed_s, 2.0, EPS);

  /* CPU: 400 ticks in all — us 200, sy 40, id 120, wa 40. */
  g_assert_cmpfloat_with_epsilon (r->cpu.us, 50.0, EPS);
  g_assert_cmpfloat_with_epsilon (r->cpu.sy, 10.0, EPS);
  g_assert_cmpfloat_with_epsilon (r->cpu.id, 30.0, EPS);
  g_assert_cmpfloat_with_epsilon (r->cpu.wa, 10.0, EPS);
  g_assert_cmpfloat_with_epsilon (r->cpu.busy, 60.0, EPS);
  g_assert_cmpuint (r->cpus->len, ==, 2);
  c = &g_array_index (r->cpus, QfCpuPct, 0);
  g_assert_cmpfloat_with_epsilon (c->us, 75.0, EPS);
  g_assert_cmpfloat_with_epsilon (c->busy, 85.0, EPS);
  c = &g_array_index (r->cpus, QfCpuPct, 1);
  g_assert_cmpfloat_with_epsilon (c->id, 50.0, EPS);
  g_assert_cmpfloat_with_epsilon (c->wa, 15.0, EPS);
  g_assert_cmpfloat_with_epsilon (c->busy, 35.0, EPS);

  /* Disks as iostat -x. */
  g_assert_cmpuint (r->disks->len, ==, 3);
  g_assert_null (disk (r, "sda1"));
  g_assert_null (disk (r, "loop0"));
  d = disk (r, "sda");
  g_assert_nonnull (d);
  g_assert_cmpfloat_with_epsilon (d->r_per_s, 20.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->w_per_s, 30.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->rkB_per_s, 512.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->wkB_per_s, 2048.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->rrqm_per_s, 2.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->wrqm_per_s, 3.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->r_await_ms, 2.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->w_await_ms, 5.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->await_ms, 3.8, EPS);
  g_assert_cmpfloat_with_epsilon (d->aqu_sz, 0.75, EPS);
  g_assert_cmpfloat_with_epsilon (d->util_pct, 50.0, EPS);
  g_assert_cmpuint (d->ios, ==, 100);

  /* 32-bit wrap of rd_ios (…290 → 4: 10 reads) and io_ticks (…000 → 704: 1000 ms). */
  d = disk (r, "vdb");
  g_assert_nonnull (d);
  g_assert_cmpfloat_with_epsilon (d->r_per_s, 5.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->util_pct, 50.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->r_await_ms, 2.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->rkB_per_s, 20.0, EPS);

  /* sdc appeared: everything it shows happened within the interval. */
  d = disk (r, "sdc");
  g_assert_nonnull (d);
  g_assert_cmpfloat_with_epsilon (d->r_per_s, 5.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->rkB_per_s, 20.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->r_await_ms, 2.0, EPS);
  g_assert_cmpfloat_with_epsilon (d->util_pct, 5.0, EPS);

  /* Network as sar -n DEV. */
  g_assert_cmpuint (r->nets->len, ==, 3);
  n = net (r, "lo");
  g_assert_cmpfloat_with_epsilon (n->rx_kBps, 1.0, EPS);
  g_assert_cmpfloat_with_epsilon (n->tx_kBps, 1.0, EPS);   /* 64-bit wrap: 2^64−1024 → 1024 */
  g_assert_cmpfloat_with_epsilon (n->rx_pkts_per_s, 5.0, EPS);
  n = net (r, "eth0");
  g_assert_cmpfloat_with_epsilon (n->rx_kBps, 1.0, EPS);   /* 32-bit wrap: 2^32−1024 → 1024 */
  g_assert_cmpfloat_with_epsilon (n->rx_pkts_per_s, 100.0, EPS);
  g_assert_cmpfloat_with_epsilon (n->tx_kBps, 10.0, EPS);
  g_assert_cmpfloat_with_epsilon (n->tx_pkts_per_s, 10.0, EPS);
  n = net (r, "wlan0");
  g_assert_nonnull (n);
  g_assert_cmpfloat_with_epsilon (n->rx_kBps, 2.0, EPS);
  g_assert_cmpfloat_with_epsilon (n->rx_pkts_per_s, 4.0, EPS);

  /* Processes: 100 used 150 ticks (75 %), 300 is new with 40 (20 %), 200 used 10 (5 %);
   * 150 exited and is gone. */
  g_assert_cmpuint (b->procs->len, ==, 3);
  g_assert_cmpuint (r->top_cpu->len, ==, 3);
  g_assert_cmpint (g_array_index (r->top_cpu, QfProcRates, 0).pid, ==, 100);
  g_assert_cmpfloat_with_epsilon (g_array_index (r->top_cpu, QfProcRates, 0).cpu_pct, 75.0, EPS);
  g_assert_cmpint (g_array_index (r->top_cpu, QfProcRates, 1).pid, ==, 300);
  g_assert_cmpfloat_with_epsilon (g_array_index (r->top_cpu, QfProcRates, 1).cpu_pct, 20.0, EPS);
  g_assert_cmpint (g_array_index (r->top_cpu, QfProcRates, 2).pid, ==, 200);
  g_assert_cmpfloat_with_epsilon (g_array_index (r->top_cpu, QfProcRates, 2).cpu_pct, 5.0, EPS);
  g_assert_cmpint (g_array_index (r->top_mem, QfProcRates, 0).pid, ==, 300);
  g_assert_cmpuint (g_array_index (r->top_mem, QfProcRates, 0).rss_kb, ==, 2000 * page_kb);
  g_assert_cmpfloat_with_epsilon (g_array_index (r->top_mem, QfProcRates, 0).mem_pct,
                                  100.0 * 2000 * page_kb / 1000000, EPS);
  g_assert_cmpstr (g_array_index (r->top_mem, QfProcRates, 1).comm, ==, "odd) name");

  /* The interface reader the network tests use. */
  {
    QfNetRates one;
    g_assert_true (qf_procstat_net_rate (a, b, "eth0", &one));
    g_assert_cmpfloat_with_epsilon (one.tx_kBps, 10.0, EPS);
    g_assert_false (qf_procstat_net_rate (a, b, "nope0", &one));
  }
}

static void
test_delta (void)
{
  g_assert_cmpuint (qf_procstat_delta (10, 25), ==, 15);
  g_assert_cmpuint (qf_procstat_delta (G_MAXUINT32 - 5, 4), ==, 10);
  g_assert_cmpuint (qf_procstat_delta (G_MAXUINT64 - 9, 5), ==, 15);
}

static void
test_missing_file (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProcStat) ps = NULL;

  (void) data;
  ps = qf_procstat_new (fx->root, QF_PROCSTAT_CPU, &error);
  g_assert_null (ps);
  g_assert_error (error, QF_PROCSTAT_ERROR, QF_PROCSTAT_ERROR_OPEN);
  g_assert_nonnull (strstr (error->message, "proc/stat"));

  /* diskstats and net/dev may be missing (containers): read as empty. */
  g_clear_error (&error);
  put (fx, "proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n");
  ps = qf_procstat_new (fx->root, QF_PROCSTAT_CPU | QF_PROCSTAT_DISKS | QF_PROCSTAT_NET, &error);
  g_assert_no_error (error);
  {
    g_autoptr(QfProcSnapshot) s = qf_procstat_snapshot_new ();
    g_assert_true (qf_procstat_read (ps, s, &error));
    g_assert_cmpuint (s->disks->len, ==, 0);
    g_assert_cmpuint (s->cpu.steal, ==, 8);
  }
}

static void
test_real_proc (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(QfProcStat) ps = qf_procstat_new (NULL, QF_PROCSTAT_ALL, &error);
  g_autoptr(QfProcSnapshot) a = qf_procstat_snapshot_new ();
  g_autoptr(QfProcSnapshot) b = qf_procstat_snapshot_new ();
  g_autoptr(QfProcRatesSet) r = qf_procstat_rates_new ();
  gdouble sum;

  g_assert_no_error (error);
  g_assert_true (qf_procstat_read (ps, a, &error));
  g_usleep (100000);
  g_assert_true (qf_procstat_read (ps, b, &error));
  g_assert_no_error (error);
  g_assert_cmpint (b->t_ns, >, a->t_ns);
  g_assert_cmpuint (b->mem_total_kb, >, 0);
  qf_procstat_rates (a, b, 0, r);
  /* Invariant: the shares of one interval add up to 100 % (or 0 when no tick passed). */
  sum = r->cpu.us + r->cpu.sy + r->cpu.ni + r->cpu.id + r->cpu.wa + r->cpu.hi + r->cpu.si + r->cpu.st;
  g_assert_true (fabs (sum - 100.0) < 1e-6 || sum == 0.0);
  g_assert_cmpuint (r->top_cpu->len, <=, 5);
  g_assert_cmpuint (r->top_mem->len, >, 0);
  g_assert_cmpint (g_array_index (r->top_mem, QfProcRates, 0).rss_kb, >=,
                   g_array_index (r->top_mem, QfProcRates, r->top_mem->len - 1).rss_kb);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/engine/procstat/two-snapshots", Fixture, NULL,
              fixture_set_up, test_two_snapshots, fixture_tear_down);
  g_test_add ("/engine/procstat/missing-file", Fixture, NULL,
              fixture_set_up, test_missing_file, fixture_tear_down);
  g_test_add_func ("/engine/procstat/delta-wrap", test_delta);
  g_test_add_func ("/engine/procstat/real-proc", test_real_proc);
  return g_test_run ();
}
