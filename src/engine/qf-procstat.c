/* qf-procstat.c — /proc readers and the rates top, mpstat, iostat -x and sar -n DEV show
 * (src/engine). See qf-procstat.h for the rules (wrap, appearing devices, whole disks).
 *
 * Files stay open; each snapshot re-reads them with pread() from offset 0 into one growing
 * buffer. Per-process stat files are kept open too (up to MAX_PID_FDS), keyed by pid, and closed
 * when the process is gone.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-procstat.h"

G_DEFINE_QUARK (qf-procstat-error-quark, qf_procstat_error)

#define MAX_PID_FDS 512
#define TOP_N 5

typedef struct
{
  int   fd;
  char *path;
} PsFile;

typedef struct
{
  int     fd;
  guint64 generation;
} PidFile;

struct QfProcStat
{
  char       *root;
  guint       parts;
  PsFile      stat, loadavg, meminfo, diskstats, netdev;
  DIR        *procdir;
  char       *proc_path;
  GHashTable *pid_files;      /* pid → PidFile */
  guint64     generation;
  char       *sys_block;      /* ROOT/sys/block, or NULL when it does not exist */
  GHashTable *whole_disk;     /* name → GINT_TO_POINTER (1 whole, 2 partition) */
  char       *buf;
  gsize       cap;
  guint       n_cpus;
  gint64    (*now_ns) (gpointer);
  gpointer    now_data;
  glong       page_kb;
};

static void
pid_file_free (gpointer data)
{
  PidFile *pf = data;

  if (pf->fd >= 0)
    close (pf->fd);
  g_free (pf);
}

static gboolean
ps_file_open (QfProcStat  *ps,
              PsFile      *file,
              const char  *relpath,
              gboolean     optional,
              GError     **error)
{
  file->path = g_build_filename (ps->root, relpath, NULL);
  file->fd = open (file->path, O_RDONLY | O_CLOEXEC);
  if (file->fd >= 0 || (optional && errno == ENOENT))
    return TRUE;
  {
    int saved = errno;
    g_set_error (error, QF_PROCSTAT_ERROR, QF_PROCSTAT_ERROR_OPEN,
                 _("Cannot open %s: %s"), file->path, g_strerror (saved));
  }
  return FALSE;
}

/* Reads the whole file from offset 0 into ps->buf (NUL-terminated); returns its length or -1. */
static gssize
read_fd (QfProcStat *ps,
         int         fd)
{
  gsize len = 0;

  for (;;)
    {
      ssize_t n;

      if (ps->cap - len < 2)
        {
          ps->cap *= 2;
          ps->buf = g_realloc (ps->buf, ps->cap);
        }
      n = pread (fd, ps->buf + len, ps->cap - len - 1, (off_t) len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      len += (gsize) n;
    }
  ps->buf[len] = '\0';
  return (gssize) len;
}

static gboolean
read_file (QfProcStat  *ps,
           PsFile      *file,
           GError     **error)
{
  if (file->fd < 0)
    {
      ps->buf[0] = '\0';
      return TRUE;
    }
  if (read_fd (ps, file->fd) < 0)
    {
      int saved = errno;
      g_set_error (error, QF_PROCSTAT_ERROR, QF_PROCSTAT_ERROR_READ,
                   _("Cannot read %s: %s"), file->path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gint64
monotonic_now (gpointer user_data)
{
  (void) user_data;
  return qf_clock_now_ns ();
}

static gboolean parse_stat (QfProcStat *ps, QfProcSnapshot *snap, GError **error);

QfProcStat *
qf_procstat_new (const char  *root,
                 guint        parts,
                 GError     **error)
{
  g_autoptr(QfProcStat) ps = g_new0 (QfProcStat, 1);
  g_autofree char *sys_block = NULL;
  long page = sysconf (_SC_PAGESIZE);

  ps->root = g_strdup (root != NULL ? root : "/");
  ps->parts = parts & QF_PROCSTAT_ALL;
  ps->stat.fd = ps->loadavg.fd = ps->meminfo.fd = ps->diskstats.fd = ps->netdev.fd = -1;
  ps->cap = 16384;
  ps->buf = g_malloc (ps->cap);
  ps->now_ns = monotonic_now;
  ps->page_kb = page > 0 ? page / 1024 : 4;
  ps->pid_files = g_hash_table_new_full (NULL, NULL, NULL, pid_file_free);
  ps->whole_disk = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if ((ps->parts & QF_PROCSTAT_CPU) && !ps_file_open (ps, &ps->stat, "proc/stat", FALSE, error))
    return NULL;
  if ((ps->parts & QF_PROCSTAT_LOADAVG)
      && !ps_file_open (ps, &ps->loadavg, "proc/loadavg", FALSE, error))
    return NULL;
  /* Process memory shares are of MemTotal, so processes need meminfo too. */
  if ((ps->parts & (QF_PROCSTAT_MEMINFO | QF_PROCSTAT_PROCESSES))
      && !ps_file_open (ps, &ps->meminfo, "proc/meminfo", FALSE, error))
    return NULL;
  if ((ps->parts & QF_PROCSTAT_DISKS)
      && !ps_file_open (ps, &ps->diskstats, "proc/diskstats", TRUE, error))
    return NULL;
  if ((ps->parts & QF_PROCSTAT_NET)
      && !ps_file_open (ps, &ps->netdev, "proc/net/dev", TRUE, error))
    return NULL;
  if (ps->parts & QF_PROCSTAT_PROCESSES)
    {
      ps->proc_path = g_build_filename (ps->root, "proc", NULL);
      ps->procdir = opendir (ps->proc_path);
      if (ps->procdir == NULL)
        {
          int saved = errno;
          g_set_error (error, QF_PROCSTAT_ERROR, QF_PROCSTAT_ERROR_OPEN,
                       _("Cannot open %s: %s"), ps->proc_path, g_strerror (saved));
          return NULL;
        }
    }

  sys_block = g_build_filename (ps->root, "sys", "block", NULL);
  if (g_file_test (sys_block, G_FILE_TEST_IS_DIR))
    ps->sys_block = g_steal_pointer (&sys_block);

  if (ps->parts & QF_PROCSTAT_CPU)
    {
      g_autoptr(QfProcSnapshot) snap = qf_procstat_snapshot_new ();
      if (!parse_stat (ps, snap, error))
        return NULL;
      ps->n_cpus = snap->cpus->len;
    }
  return g_steal_pointer (&ps);
}

void
qf_procstat_free (QfProcStat *ps)
{
  if (ps == NULL)
    return;
  PsFile *files[] = { &ps->stat, &ps->loadavg, &ps->meminfo, &ps->diskstats, &ps->netdev };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      if (files[i]->fd >= 0)
        close (files[i]->fd);
      g_free (files[i]->path);
    }
  if (ps->procdir != NULL)
    closedir (ps->procdir);
  g_hash_table_destroy (ps->pid_files);
  g_hash_table_destroy (ps->whole_disk);
  g_free (ps->proc_path);
  g_free (ps->sys_block);
  g_free (ps->root);
  g_free (ps->buf);
  g_free (ps);
}

guint
qf_procstat_n_cpus (const QfProcStat *ps)
{
  g_return_val_if_fail (ps != NULL, 0);
  return ps->n_cpus;
}

void
qf_procstat_set_clock (QfProcStat  *ps,
                       gint64     (*now_ns) (gpointer),
                       gpointer     user_data)
{
  g_return_if_fail (ps != NULL);
  ps->now_ns = now_ns != NULL ? now_ns : monotonic_now;
  ps->now_data = now_ns != NULL ? user_data : NULL;
}

QfProcSnapshot *
qf_procstat_snapshot_new (void)
{
  QfProcSnapshot *snap = g_new0 (QfProcSnapshot, 1);

  snap->cpus = g_array_new (FALSE, TRUE, sizeof (QfCpuTicks));
  snap->disks = g_array_new (FALSE, TRUE, sizeof (QfDiskCounters));
  snap->nets = g_array_new (FALSE, TRUE, sizeof (QfNetCounters));
  snap->procs = g_array_new (FALSE, TRUE, sizeof (QfProcCounters));
  return snap;
}

void
qf_procstat_snapshot_free (QfProcSnapshot *snap)
{
  if (snap == NULL)
    return;
  g_array_unref (snap->cpus);
  g_array_unref (snap->disks);
  g_array_unref (snap->nets);
  g_array_unref (snap->procs);
  g_free (snap);
}

/* ---- parsers ---- */

static gboolean
parse_error (GError     **error,
             const char  *path,
             const char  *what)
{
  g_set_error (error, QF_PROCSTAT_ERROR, QF_PROCSTAT_ERROR_PARSE,
               _("Unexpected format in %s: %s"), path, what);
  return FALSE;
}

/* Reads up to max unsigned numbers separated by blanks from *p; returns how many. */
static guint
scan_u64 (const char **p,
          guint64     *out,
          guint        max)
{
  guint n = 0;
  const char *s = *p;

  while (n < max)
    {
      char *end;
      while (*s == ' ' || *s == '\t')
        s++;
      if (!g_ascii_isdigit (*s))
        break;
      out[n++] = g_ascii_strtoull (s, &end, 10);
      s = end;
    }
  *p = s;
  return n;
}

static const char *
next_line (const char *s)
{
  const char *nl = strchr (s, '\n');
  return nl != NULL ? nl + 1 : NULL;
}

static void
copy_name (char        dest[32],
           const char *src,
           gsize       len)
{
  len = MIN (len, 31);
  memcpy (dest, src, len);
  dest[len] = '\0';
}

static gboolean
parse_stat (QfProcStat      *ps,
            QfProcSnapshot  *snap,
            GError         **error)
{
  gboolean have_total = FALSE;

  if (!read_file (ps, &ps->stat, error))
    return FALSE;
  g_array_set_size (snap->cpus, 0);
  for (const char *line = ps->buf; line != NULL && *line; line = next_line (line))
    {
      guint64 v[8] = { 0 };
      const char *p;
      QfCpuTicks ticks;
      gint64 index = -1;

      if (!g_str_has_prefix (line, "cpu"))
        continue;
      p = line + 3;
      if (g_ascii_isdigit (*p))
        {
          char *end;
          index = g_ascii_strtoll (p, &end, 10);
          p = end;
        }
      if (scan_u64 (&p, v, 8) < 4)
        return parse_error (error, ps->stat.path, "a cpu line has fewer than 4 counters");
      ticks = (QfCpuTicks) { v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] };
      if (index < 0)
        {
          snap->cpu = ticks;
          have_total = TRUE;
        }
      else if (index < 65536)
        {
          if ((guint) index >= snap->cpus->len)
            g_array_set_size (snap->cpus, (guint) index + 1);
          g_array_index (snap->cpus, QfCpuTicks, index) = ticks;
        }
    }
  if (!have_total)
    return parse_error (error, ps->stat.path, "no “cpu” line");
  return TRUE;
}

static gboolean
parse_loadavg (QfProcStat      *ps,
               QfProcSnapshot  *snap,
               GError         **error)
{
  char *end;
  const char *p;

  if (!read_file (ps, &ps->loadavg, error))
    return FALSE;
  p = ps->buf;
  snap->load1 = g_ascii_strtod (p, &end);
  if (end == p)
    return parse_error (error, ps->loadavg.path, "no load average");
  p = end;
  snap->load5 = g_ascii_strtod (p, &end);
  p = end;
  snap->load15 = g_ascii_strtod (p, &end);
  p = end;
  snap->runnable = (guint) g_ascii_strtoull (p, &end, 10);
  p = end;
  if (*p == '/')
    snap->threads = (guint) g_ascii_strtoull (p + 1, &end, 10);
  return TRUE;
}

static gboolean
parse_meminfo (QfProcStat      *ps,
               QfProcSnapshot  *snap,
               GError         **error)
{
  static const struct { const char *key; gsize offset; } keys[] = {
    { "MemTotal:", G_STRUCT_OFFSET (QfProcSnapshot, mem_total_kb) },
    { "MemFree:", G_STRUCT_OFFSET (QfProcSnapshot, mem_free_kb) },
    { "MemAvailable:", G_STRUCT_OFFSET (QfProcSnapshot, mem_available_kb) },
    { "Buffers:", G_STRUCT_OFFSET (QfProcSnapshot, buffers_kb) },
    { "Cached:", G_STRUCT_OFFSET (QfProcSnapshot, cached_kb) },
    { "SReclaimable:", G_STRUCT_OFFSET (QfProcSnapshot, sreclaimable_kb) },
    { "Shmem:", G_STRUCT_OFFSET (QfProcSnapshot, shmem_kb) },
    { "SwapTotal:", G_STRUCT_OFFSET (QfProcSnapshot, swap_total_kb) },
    { "SwapFree:", G_STRUCT_OFFSET (QfProcSnapshot, swap_free_kb) },
  };
  gboolean have_total = FALSE;

  if (!read_file (ps, &ps->meminfo, error))
    return FALSE;
  for (const char *line = ps->buf; line != NULL && *line; line = next_line (line))
    for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
      if (g_str_has_prefix (line, keys[i].key))
        {
          const char *p = line + strlen (keys[i].key);
          guint64 v = 0;
          if (scan_u64 (&p, &v, 1) == 1)
            {
              G_STRUCT_MEMBER (guint64, snap, keys[i].offset) = v;
              have_total |= (i == 0);
            }
          break;
        }
  if (!have_total)
    return parse_error (error, ps->meminfo.path, "no MemTotal");
  return TRUE;
}

static gboolean
is_whole_disk (QfProcStat *ps,
               const char *name)
{
  gpointer known;
  g_autofree char *sysname = NULL;
  g_autofree char *path = NULL;
  gboolean whole;

  if (ps->sys_block == NULL)
    return TRUE;
  known = g_hash_table_lookup (ps->whole_disk, name);
  if (known != NULL)
    return GPOINTER_TO_INT (known) == 1;
  /* /sys/block names a device "cciss!c0d0" where diskstats says "cciss/c0d0". */
  sysname = g_strdelimit (g_strdup (name), "/", '!');
  path = g_build_filename (ps->sys_block, sysname, NULL);
  whole = g_file_test (path, G_FILE_TEST_EXISTS);
  g_hash_table_insert (ps->whole_disk, g_strdup (name), GINT_TO_POINTER (whole ? 1 : 2));
  return whole;
}

static gboolean
parse_diskstats (QfProcStat      *ps,
                 QfProcSnapshot  *snap,
                 GError         **error)
{
  if (!read_file (ps, &ps->diskstats, error))
    return FALSE;
  g_array_set_size (snap->disks, 0);
  for (const char *line = ps->buf; line != NULL && *line; line = next_line (line))
    {
      guint64 v[17] = { 0 };
      guint64 majmin[2];
      const char *p = line, *name;
      gsize name_len;
      guint n;
      QfDiskCounters d;

      memset (&d, 0, sizeof d);
      if (scan_u64 (&p, majmin, 2) != 2)
        continue;
      while (*p == ' ' || *p == '\t')
        p++;
      name = p;
      while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;
      name_len = (gsize) (p - name);
      if (name_len == 0)
        return parse_error (error, ps->diskstats.path, "a line without a device name");
      n = scan_u64 (&p, v, 17);
      if (n < 11)
        return parse_error (error, ps->diskstats.path, "a line with fewer than 11 counters");
      copy_name (d.name, name, name_len);
      d.rd_ios = v[0]; d.rd_merges = v[1]; d.rd_sectors = v[2]; d.rd_ticks_ms = v[3];
      d.wr_ios = v[4]; d.wr_merges = v[5]; d.wr_sectors = v[6]; d.wr_ticks_ms = v[7];
      d.in_flight = v[8]; d.io_ticks_ms = v[9]; d.time_in_queue_ms = v[10];
      d.dc_ios = v[11]; d.dc_merges = v[12]; d.dc_sectors = v[13]; d.dc_ticks_ms = v[14];
      d.fl_ios = v[15]; d.fl_ticks_ms = v[16];
      if (d.rd_ios + d.wr_ios + d.dc_ios + d.fl_ios == 0)
        continue;
      if (!is_whole_disk (ps, d.name))
        continue;
      g_array_append_val (snap->disks, d);
    }
  return TRUE;
}

static gboolean
parse_netdev (QfProcStat      *ps,
              QfProcSnapshot  *snap,
              GError         **error)
{
  if (!read_file (ps, &ps->netdev, error))
    return FALSE;
  g_array_set_size (snap->nets, 0);
  for (const char *line = ps->buf; line != NULL && *line; line = next_line (line))
    {
      const char *colon = strchr (line, ':');
      const char *nl = strchr (line, '\n');
      const char *name = line, *p;
      guint64 v[16] = { 0 };
      QfNetCounters c;

      memset (&c, 0, sizeof c);
      if (colon == NULL || (nl != NULL && colon > nl))
        continue;   /* the two header lines */
      while (*name == ' ')
        name++;
      p = colon + 1;
      if (scan_u64 (&p, v, 16) < 16)
        return parse_error (error, ps->netdev.path,
                            "an interface line with fewer than 16 counters");
      copy_name (c.name, name, (gsize) (colon - name));
      c.rx_bytes = v[0]; c.rx_packets = v[1]; c.rx_errs = v[2]; c.rx_drop = v[3];
      c.tx_bytes = v[8]; c.tx_packets = v[9]; c.tx_errs = v[10]; c.tx_drop = v[11];
      g_array_append_val (snap->nets, c);
    }
  return TRUE;
}

/* Parses "pid (comm) S ppid …": comm may hold spaces and parentheses, so split at the last
 * ')'. */
static gboolean
parse_pid_stat (const char     *text,
                gint32          pid,
                glong           page_kb,
                QfProcCounters *out)
{
  const char *open = strchr (text, '(');
  const char *close = strrchr (text, ')');
  const char *p;
  guint field = 3;
  guint64 utime = 0, stime = 0, rss = 0;

  if (open == NULL || close == NULL || close < open)
    return FALSE;
  out->pid = pid;
  copy_name (out->comm, open + 1, (gsize) (close - open - 1));
  p = close + 1;
  while (*p && field <= 24)
    {
      char *end;
      guint64 v;

      while (*p == ' ')
        p++;
      if (field == 3)   /* the state letter */
        {
          while (*p && *p != ' ')
            p++;
          field++;
          continue;
        }
      v = g_ascii_strtoull (p, &end, 10);
      if (end == p)
        {
          if (*p == '-')   /* negative fields (priority, nice) */
            {
              v = 0;
              g_ascii_strtoll (p, &end, 10);
            }
          if (end == p)
            return FALSE;
        }
      p = end;
      if (field == 14)
        utime = v;
      else if (field == 15)
        stime = v;
      else if (field == 24)
        rss = v;
      field++;
    }
  if (field <= 24)
    return FALSE;
  out->cpu_ticks = utime + stime;
  out->rss_kb = rss * (guint64) page_kb;
  return TRUE;
}

static gint
proc_by_pid (gconstpointer a,
             gconstpointer b)
{
  const QfProcCounters *pa = a, *pb = b;
  return (pa->pid > pb->pid) - (pa->pid < pb->pid);
}

static gboolean
remove_stale (gpointer key,
              gpointer value,
              gpointer user_data)
{
  (void) key;
  return ((PidFile *) value)->generation != *(guint64 *) user_data;
}

static void
read_processes (QfProcStat     *ps,
                QfProcSnapshot *snap)
{
  struct dirent *entry;
  int dir_fd = dirfd (ps->procdir);

  ps->generation++;
  g_array_set_size (snap->procs, 0);
  rewinddir (ps->procdir);
  while ((entry = readdir (ps->procdir)) != NULL)
    {
      char relpath[64];
      char *end;
      gint64 pid;
      PidFile *pf;
      int fd;
      gboolean cached;
      gssize len;
      QfProcCounters c = { 0 };

      if (!g_ascii_isdigit (entry->d_name[0]))
        continue;
      pid = g_ascii_strtoll (entry->d_name, &end, 10);
      if (*end != '\0' || pid <= 0 || pid > G_MAXINT32)
        continue;

      pf = g_hash_table_lookup (ps->pid_files, GINT_TO_POINTER ((gint) pid));
      cached = pf != NULL;
      if (cached)
        fd = pf->fd;
      else
        {
          g_snprintf (relpath, sizeof relpath, "%s/stat", entry->d_name);
          fd = openat (dir_fd, relpath, O_RDONLY | O_CLOEXEC);
          if (fd < 0)
            continue;   /* gone already */
        }
      len = read_fd (ps, fd);
      if (len <= 0 || !parse_pid_stat (ps->buf, (gint32) pid, ps->page_kb, &c))
        {
          /* The process exited: its open stat file now reads ESRCH. */
          if (cached)
            g_hash_table_remove (ps->pid_files, GINT_TO_POINTER ((gint) pid));
          else
            close (fd);
          continue;
        }
      if (!cached)
        {
          if (g_hash_table_size (ps->pid_files) < MAX_PID_FDS)
            {
              pf = g_new0 (PidFile, 1);
              pf->fd = fd;
              g_hash_table_insert (ps->pid_files, GINT_TO_POINTER ((gint) pid), pf);
            }
          else
            close (fd);
        }
      if (pf != NULL)
        pf->generation = ps->generation;
      g_array_append_val (snap->procs, c);
    }
  g_hash_table_foreach_remove (ps->pid_files, remove_stale, &ps->generation);
  g_array_sort (snap->procs, proc_by_pid);
}

gboolean
qf_procstat_read (QfProcStat      *ps,
                  QfProcSnapshot  *snap,
                  GError         **error)
{
  g_return_val_if_fail (ps != NULL, FALSE);
  g_return_val_if_fail (snap != NULL, FALSE);

  snap->t_ns = ps->now_ns (ps->now_data);
  snap->parts = ps->parts;
  if ((ps->parts & QF_PROCSTAT_CPU) && !parse_stat (ps, snap, error))
    return FALSE;
  if ((ps->parts & QF_PROCSTAT_LOADAVG) && !parse_loadavg (ps, snap, error))
    return FALSE;
  if (ps->meminfo.fd >= 0 && !parse_meminfo (ps, snap, error))
    return FALSE;
  if ((ps->parts & QF_PROCSTAT_DISKS) && !parse_diskstats (ps, snap, error))
    return FALSE;
  if ((ps->parts & QF_PROCSTAT_NET) && !parse_netdev (ps, snap, error))
    return FALSE;
  if (ps->parts & QF_PROCSTAT_PROCESSES)
    read_processes (ps, snap);
  return TRUE;
}

/* ---- rates ---- */

QfProcRatesSet *
qf_procstat_rates_new (void)
{
  QfProcRatesSet *r = g_new0 (QfProcRatesSet, 1);

  r->cpus = g_array_new (FALSE, TRUE, sizeof (QfCpuPct));
  r->disks = g_array_new (FALSE, TRUE, sizeof (QfDiskRates));
  r->nets = g_array_new (FALSE, TRUE, sizeof (QfNetRates));
  r->top_cpu = g_array_new (FALSE, TRUE, sizeof (QfProcRates));
  r->top_mem = g_array_new (FALSE, TRUE, sizeof (QfProcRates));
  return r;
}

void
qf_procstat_rates_free (QfProcRatesSet *rates)
{
  if (rates == NULL)
    return;
  g_array_unref (rates->cpus);
  g_array_unref (rates->disks);
  g_array_unref (rates->nets);
  g_array_unref (rates->top_cpu);
  g_array_unref (rates->top_mem);
  g_free (rates);
}

/* CPU tick counters are 64-bit and never wrap in practice; the kernel may show a slightly smaller
 * idle or iowait on an idle CPU (a known accounting quirk), which counts as zero, as in sysstat. */
static guint64
tick_delta (guint64 prev,
            guint64 cur)
{
  return cur >= prev ? cur - prev : 0;
}

static QfCpuPct
cpu_pct (const QfCpuTicks *a,
         const QfCpuTicks *b)
{
  guint64 us = tick_delta (a->user, b->user), ni = tick_delta (a->nice, b->nice);
  guint64 sy = tick_delta (a->system, b->system), id = tick_delta (a->idle, b->idle);
  guint64 wa = tick_delta (a->iowait, b->iowait), hi = tick_delta (a->irq, b->irq);
  guint64 si = tick_delta (a->softirq, b->softirq), st = tick_delta (a->steal, b->steal);
  guint64 total = us + ni + sy + id + wa + hi + si + st;
  QfCpuPct pct = { 0 };

  if (total == 0)
    return pct;
  pct.us = 100.0 * us / total;
  pct.sy = 100.0 * sy / total;
  pct.ni = 100.0 * ni / total;
  pct.id = 100.0 * id / total;
  pct.wa = 100.0 * wa / total;
  pct.hi = 100.0 * hi / total;
  pct.si = 100.0 * si / total;
  pct.st = 100.0 * st / total;
  pct.busy = 100.0 * (us + ni + sy + hi + si + st) / total;
  return pct;
}

static const QfDiskCounters *
find_disk (const GArray *disks,
           const char   *name,
           guint         hint)
{
  if (hint < disks->len && strcmp (g_array_index (disks, QfDiskCounters, hint).name, name) == 0)
    return &g_array_index (disks, QfDiskCounters, hint);
  for (guint i = 0; i < disks->len; i++)
    if (strcmp (g_array_index (disks, QfDiskCounters, i).name, name) == 0)
      return &g_array_index (disks, QfDiskCounters, i);
  return NULL;
}

static const QfNetCounters *
find_net (const GArray *nets,
          const char   *name,
          guint         hint)
{
  if (hint < nets->len && strcmp (g_array_index (nets, QfNetCounters, hint).name, name) == 0)
    return &g_array_index (nets, QfNetCounters, hint);
  for (guint i = 0; i < nets->len; i++)
    if (strcmp (g_array_index (nets, QfNetCounters, i).name, name) == 0)
      return &g_array_index (nets, QfNetCounters, i);
  return NULL;
}

static void
disk_rates (const QfDiskCounters *a,
            const QfDiskCounters *b,
            gdouble               dt,
            QfDiskRates          *r)
{
  guint64 rd = qf_procstat_delta (a->rd_ios, b->rd_ios);
  guint64 wr = qf_procstat_delta (a->wr_ios, b->wr_ios);
  guint64 dc = qf_procstat_delta (a->dc_ios, b->dc_ios);
  guint64 fl = qf_procstat_delta (a->fl_ios, b->fl_ios);
  guint64 rd_t = qf_procstat_delta (a->rd_ticks_ms, b->rd_ticks_ms);
  guint64 wr_t = qf_procstat_delta (a->wr_ticks_ms, b->wr_ticks_ms);
  guint64 dc_t = qf_procstat_delta (a->dc_ticks_ms, b->dc_ticks_ms);
  guint64 fl_t = qf_procstat_delta (a->fl_ticks_ms, b->fl_ticks_ms);
  guint64 all = rd + wr + dc + fl;

  memset (r, 0, sizeof *r);
  memcpy (r->name, b->name, sizeof r->name);
  r->ios = all;
  r->r_per_s = rd / dt;
  r->w_per_s = wr / dt;
  r->rkB_per_s = qf_procstat_delta (a->rd_sectors, b->rd_sectors) / 2.0 / dt;
  r->wkB_per_s = qf_procstat_delta (a->wr_sectors, b->wr_sectors) / 2.0 / dt;
  r->rrqm_per_s = qf_procstat_delta (a->rd_merges, b->rd_merges) / dt;
  r->wrqm_per_s = qf_procstat_delta (a->wr_merges, b->wr_merges) / dt;
  r->r_await_ms = rd > 0 ? (gdouble) rd_t / rd : 0.0;
  r->w_await_ms = wr > 0 ? (gdouble) wr_t / wr : 0.0;
  r->await_ms = all > 0 ? (gdouble) (rd_t + wr_t + dc_t + fl_t) / all : 0.0;
  r->aqu_sz = qf_procstat_delta (a->time_in_queue_ms, b->time_in_queue_ms) / (dt * 1000.0);
  /* io_ticks advances in jiffies, so one interval can show a few ms more than elapsed. */
  r->util_pct = MIN (100.0, qf_procstat_delta (a->io_ticks_ms, b->io_ticks_ms) / (dt * 10.0));
}

static gint
by_cpu_desc (gconstpointer a,
             gconstpointer b)
{
  const QfProcRates *pa = a, *pb = b;
  if (pa->cpu_pct != pb->cpu_pct)
    return pa->cpu_pct < pb->cpu_pct ? 1 : -1;
  return (pa->pid > pb->pid) - (pa->pid < pb->pid);
}

static gint
by_mem_desc (gconstpointer a,
             gconstpointer b)
{
  const QfProcRates *pa = a, *pb = b;
  if (pa->rss_kb != pb->rss_kb)
    return pa->rss_kb < pb->rss_kb ? 1 : -1;
  return (pa->pid > pb->pid) - (pa->pid < pb->pid);
}

static void
process_rates (const QfProcSnapshot *prev,
               const QfProcSnapshot *cur,
               gdouble               dt,
               glong                 clk_tck,
               QfProcRatesSet       *out)
{
  g_autoptr(GArray) all = g_array_sized_new (FALSE, TRUE, sizeof (QfProcRates), cur->procs->len);
  guint j = 0;

  for (guint i = 0; i < cur->procs->len; i++)
    {
      const QfProcCounters *c = &g_array_index (cur->procs, QfProcCounters, i);
      guint64 before = 0;
      QfProcRates r = { 0 };

      /* Both arrays are sorted by pid: walk them together. A process that started within the
       * interval counts from zero, like a new disk. */
      while (j < prev->procs->len && g_array_index (prev->procs, QfProcCounters, j).pid < c->pid)
        j++;
      if (j < prev->procs->len && g_array_index (prev->procs, QfProcCounters, j).pid == c->pid)
        before = g_array_index (prev->procs, QfProcCounters, j).cpu_ticks;
      r.pid = c->pid;
      memcpy (r.comm, c->comm, sizeof r.comm);
      r.cpu_pct = 100.0 * tick_delta (before, c->cpu_ticks) / ((gdouble) clk_tck * dt);
      r.rss_kb = c->rss_kb;
      r.mem_pct = cur->mem_total_kb > 0 ? 100.0 * c->rss_kb / cur->mem_total_kb : 0.0;
      g_array_append_val (all, r);
    }
  g_array_sort (all, by_cpu_desc);
  g_array_append_vals (out->top_cpu, all->data, MIN (all->len, TOP_N));
  g_array_sort (all, by_mem_desc);
  g_array_append_vals (out->top_mem, all->data, MIN (all->len, TOP_N));
}

void
qf_procstat_rates (const QfProcSnapshot *prev,
                   const QfProcSnapshot *cur,
                   glong                 clk_tck,
                   QfProcRatesSet       *out)
{
  gdouble dt;

  g_return_if_fail (prev != NULL && cur != NULL && out != NULL);

  g_array_set_size (out->cpus, 0);
  g_array_set_size (out->disks, 0);
  g_array_set_size (out->nets, 0);
  g_array_set_size (out->top_cpu, 0);
  g_array_set_size (out->top_mem, 0);
  memset (&out->cpu, 0, sizeof out->cpu);

  if (clk_tck <= 0)
    clk_tck = sysconf (_SC_CLK_TCK);
  if (clk_tck <= 0)
    clk_tck = 100;
  dt = (cur->t_ns - prev->t_ns) / 1e9;
  out->elapsed_s = dt;
  if (dt <= 0.0)
    return;

  out->cpu = cpu_pct (&prev->cpu, &cur->cpu);
  for (guint i = 0; i < MIN (prev->cpus->len, cur->cpus->len); i++)
    {
      QfCpuPct p = cpu_pct (&g_array_index (prev->cpus, QfCpuTicks, i),
                            &g_array_index (cur->cpus, QfCpuTicks, i));
      g_array_append_val (out->cpus, p);
    }

  for (guint i = 0; i < cur->disks->len; i++)
    {
      static const QfDiskCounters zero;
      const QfDiskCounters *b = &g_array_index (cur->disks, QfDiskCounters, i);
      const QfDiskCounters *a = find_disk (prev->disks, b->name, i);
      QfDiskRates r;

      disk_rates (a != NULL ? a : &zero, b, dt, &r);
      g_array_append_val (out->disks, r);
    }

  for (guint i = 0; i < cur->nets->len; i++)
    {
      static const QfNetCounters zero;
      const QfNetCounters *b = &g_array_index (cur->nets, QfNetCounters, i);
      const QfNetCounters *a = find_net (prev->nets, b->name, i);
      QfNetRates r;

      if (a == NULL)
        a = &zero;
      memset (&r, 0, sizeof r);
      memcpy (r.name, b->name, sizeof r.name);
      r.rx_kBps = qf_procstat_delta (a->rx_bytes, b->rx_bytes) / 1024.0 / dt;
      r.tx_kBps = qf_procstat_delta (a->tx_bytes, b->tx_bytes) / 1024.0 / dt;
      r.rx_pkts_per_s = qf_procstat_delta (a->rx_packets, b->rx_packets) / dt;
      r.tx_pkts_per_s = qf_procstat_delta (a->tx_packets, b->tx_packets) / dt;
      g_array_append_val (out->nets, r);
    }

  if ((prev->parts & cur->parts & QF_PROCSTAT_PROCESSES) != 0)
    process_rates (prev, cur, dt, clk_tck, out);
}

gboolean
qf_procstat_net_rate (const QfProcSnapshot *prev,
                      const QfProcSnapshot *cur,
                      const char           *iface,
                      QfNetRates           *out)
{
  static const QfNetCounters zero;
  const QfNetCounters *a, *b;
  gdouble dt;

  g_return_val_if_fail (prev != NULL && cur != NULL && iface != NULL && out != NULL, FALSE);

  b = find_net (cur->nets, iface, 0);
  if (b == NULL)
    return FALSE;
  a = find_net (prev->nets, iface, 0);
  if (a == NULL)
    a = &zero;
  memset (out, 0, sizeof *out);
  memcpy (out->name, b->name, sizeof out->name);
  dt = (cur->t_ns - prev->t_ns) / 1e9;
  if (dt <= 0.0)
    return TRUE;
  out->rx_kBps = qf_procstat_delta (a->rx_bytes, b->rx_bytes) / 1024.0 / dt;
  out->tx_kBps = qf_procstat_delta (a->tx_bytes, b->tx_bytes) / 1024.0 / dt;
  out->rx_pkts_per_s = qf_procstat_delta (a->rx_packets, b->rx_packets) / dt;
  out->tx_pkts_per_s = qf_procstat_delta (a->tx_packets, b->tx_packets) / dt;
  return TRUE;
}
