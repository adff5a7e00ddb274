/* qf-stress.c — the stressors: one child process per worker (src/engine). See qf-stress.h.
 *
 * Workers are fork()ed from a process that may have other threads (the monitor), so a child only
 * makes system calls and plain arithmetic: no malloc, no GLib, no stdio. Everything a child
 * needs (paths, sizes) is prepared by the parent before fork(); each child reports its counters
 * and its errno through a shared anonymous mapping.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/magic.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-procstat.h"
#include "qf-stress.h"

G_DEFINE_QUARK (qf-stress-error-quark, qf_stress_error)

#define HDD_CHUNK      (1u << 20)            /* one write() */
#define HDD_SYNC_EVERY (4u << 20)            /* fdatasync interval without O_DIRECT */
#define DIRECT_ALIGN   4096u
#define POLL_NS        (100 * QF_NSEC_PER_MSEC)
#define OLD_DIR_PREFIX   "qualify-stress-"   /* folders of earlier versions, cleaned up */
#define HDD_FILE_PREFIX  ".qf-hdd-"
#define HDD_PROBE_PREFIX ".qf-hdd-probe-"

typedef enum { KIND_CPU, KIND_IO, KIND_VM, KIND_HDD, N_KINDS } Kind;

static const char *const kind_names[N_KINDS] = { "cpu", "io", "vm", "hdd" };

/* Written by one child, read by the parent: plain relaxed atomics are enough. */
typedef struct
{
  guint64 bytes;      /* hdd: bytes written; vm: bytes touched */
  guint64 loops;      /* cpu: thousands of sqrt(); io: sync() calls; vm/hdd: rounds */
  gint    err;        /* errno of the failure that ended the worker */
  gint    mode;       /* hdd: 1 = O_DIRECT, 2 = fdatasync */
  char    path[256];  /* hdd: the named-file fallback, prepared by the parent */
} WorkerShared;

typedef struct
{
  pid_t pid;          /* 0 once reaped */
  Kind  kind;
  guint slot;
} Worker;

struct QfStress
{
  QfStressConfig  config;
  guint           counts[N_KINDS];
  char           *root;
  char           *hdd_dir;
  WorkerShared   *shared;
  gsize           shared_size;
  guint           n_slots;
  GArray         *workers;       /* Worker */
  QfProcStat     *meminfo;       /* for the memory floor; NULL without vm workers */
  QfProcSnapshot *mem_snap;
  guint64         mem_floor_kb;
  pid_t           parent_pid;
  QfStressResult  result;
  gboolean        running;
};

/* ---- children (async-signal-safe code only) ---- */

static void
child_sleep (gdouble seconds)
{
  struct timespec ts = { (time_t) seconds, (long) ((seconds - (time_t) seconds) * 1e9) };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

static void G_GNUC_NORETURN
child_fail (WorkerShared *sh,
            int           err)
{
  __atomic_store_n (&sh->err, err != 0 ? err : EIO, __ATOMIC_RELAXED);
  _exit (1);
}

static void G_GNUC_NORETURN
run_cpu (WorkerShared *sh)
{
  guint64 x = G_GUINT64_CONSTANT (88172645463325252) ^ (guint64) getpid ();
  volatile gdouble sink = 0.0;

  for (;;)
    {
      for (guint i = 0; i < 1000; i++)
        {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          sink += sqrt ((gdouble) (x >> 11));
        }
      __atomic_add_fetch (&sh->loops, 1, __ATOMIC_RELAXED);
    }
}

static void G_GNUC_NORETURN
run_io (WorkerShared *sh)
{
  for (;;)
    {
      sync ();
      __atomic_add_fetch (&sh->loops, 1, __ATOMIC_RELAXED);
    }
}

static void G_GNUC_NORETURN
run_vm (WorkerShared *sh,
        guint64       bytes,
        gdouble       hang_s)
{
  long page = sysconf (_SC_PAGESIZE);
  int fd;

  /* Were memory ever short, the kernel's OOM killer should pick a stressor, never the
   * customer's software. */
  fd = open ("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      if (write (fd, "1000", 4) < 0)
        { /* best effort: an unprivileged container may refuse */ }
      close (fd);
    }
  if (page <= 0)
    page = 4096;

  for (;;)
    {
      volatile char *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        child_fail (sh, errno);
      for (guint64 off = 0; off < bytes; off += (guint64) page)
        p[off] = 'Z';
      __atomic_add_fetch (&sh->bytes, bytes, __ATOMIC_RELAXED);
      __atomic_add_fetch (&sh->loops, 1, __ATOMIC_RELAXED);
      if (hang_s == 0.0)
        for (;;)
          pause ();
      if (hang_s > 0.0)
        child_sleep (hang_s);
      munmap ((void *) p, bytes);
    }
}

/* An unnamed file in dir (O_TMPFILE), else a named one unlinked at once; O_DIRECT when the file
 * system allows it. */
static int
hdd_open (WorkerShared *sh,
          const char   *dir,
          gboolean      direct)
{
  int flags = O_WRONLY | O_CLOEXEC | (direct ? O_DIRECT : 0);
  int fd = open (dir, flags | O_TMPFILE, 0600);

  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
    return fd;
  if (errno == EINVAL && direct)
    return -1;   /* let the caller retry without O_DIRECT */
  fd = open (sh->path, flags | O_CREAT | O_EXCL, 0600);
  if (fd >= 0)
    unlink (sh->path);
  return fd;
}

static void G_GNUC_NORETURN
run_hdd (WorkerShared *sh,
         const char   *dir,
         guint64       bytes)
{
  gboolean direct = TRUE;
  int fd;
  char *buf = mmap (NULL, HDD_CHUNK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (buf == MAP_FAILED)
    child_fail (sh, errno);
  memset (buf, 0x5a, HDD_CHUNK);

  /* One file per worker, written from offset 0 again each round: the first round allocates it,
   * later rounds overwrite it, as fio does after laying out its file. A new file per round (as
   * stress does) spends a good part of the time allocating and freeing blocks instead. */
  fd = hdd_open (sh, dir, direct);
  if (fd < 0 && direct && errno == EINVAL)
    {
      direct = FALSE;
      fd = hdd_open (sh, dir, FALSE);
    }
  if (fd < 0)
    child_fail (sh, errno);
  __atomic_store_n (&sh->mode, direct ? 1 : 2, __ATOMIC_RELAXED);

  for (;;)
    {
      guint64 left = bytes, since_sync = 0, offset = 0;

      while (left > 0)
        {
          gsize n = (gsize) MIN (left, (guint64) HDD_CHUNK);
          ssize_t w;

          if (direct)
            n = (n + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
          w = pwrite (fd, buf, n, (off_t) offset);
          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            child_fail (sh, errno);
          left -= MIN (left, (guint64) w);
          offset += (guint64) w;
          since_sync += (guint64) w;
          __atomic_add_fetch (&sh->bytes, (guint64) w, __ATOMIC_RELAXED);
          if (!direct && since_sync >= HDD_SYNC_EVERY)
            {
              if (fdatasync (fd) < 0)
                child_fail (sh, errno);
              since_sync = 0;
            }
        }
      if (!direct && fdatasync (fd) < 0)
        child_fail (sh, errno);
      __atomic_add_fetch (&sh->loops, 1, __ATOMIC_RELAXED);
    }
}

static void G_GNUC_NORETURN
child_main (QfStress     *stress,
            Kind          kind,
            WorkerShared *sh)
{
  sigset_t none;
  char name[16];

  /* Die with the thread that started us, even when the parent is SIGKILLed; if it is already
   * gone (it died between fork and here), leave at once. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != stress->parent_pid)
    _exit (0);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  /* Ctrl-C reaches the whole process group: the parent stops us itself. */
  signal (SIGINT, SIG_IGN);
  signal (SIGTERM, SIG_DFL);
  signal (SIGPIPE, SIG_DFL);
  memcpy (name, "qf-stress-", 10);
  memcpy (name + 10, kind_names[kind], strlen (kind_names[kind]) + 1);
  prctl (PR_SET_NAME, name);

  switch (kind)
    {
    case KIND_CPU:
      run_cpu (sh);
    case KIND_IO:
      run_io (sh);
    case KIND_VM:
      run_vm (sh, stress->config.vm_bytes, stress->config.vm_hang_s);
    case KIND_HDD:
      run_hdd (sh, stress->hdd_dir, stress->config.hdd_bytes);
    case N_KINDS:
    default:
      break;
    }
  _exit (2);
}

/* ---- parent ---- */

static char *
format_size (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

static const char *
choose_temp_base (void)
{
  const char *tmp = g_get_tmp_dir ();
  struct statfs sf;

  /* A tmpfs is RAM: a disk load there would load memory, not the disk. */
  if (statfs (tmp, &sf) == 0 && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC)
      && g_file_test ("/var/tmp", G_FILE_TEST_IS_DIR))
    return "/var/tmp";
  return tmp;
}

/* Whether name is "<prefix><PID><end>…" for a PID that no longer runs (a run killed with SIGKILL
 * cannot tidy up after itself). */
static gboolean
names_dead_run (const char *name,
                const char *prefix,
                char        end)
{
  char *rest;
  gint64 pid;

  if (!g_str_has_prefix (name, prefix))
    return FALSE;
  pid = g_ascii_strtoll (name + strlen (prefix), &rest, 10);
  if (pid <= 0 || pid > G_MAXINT || *rest != end || pid == getpid ())
    return FALSE;
  return kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
}

/* Removes our named hdd files (".qf-hdd-PID-SLOT", ".qf-hdd-probe-PID") whose PID no longer runs:
 * they exist only where O_TMPFILE is refused, between their creation and the unlink right after. */
static void
clean_stale_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (names_dead_run (name, HDD_FILE_PREFIX, '-') || names_dead_run (name, HDD_PROBE_PREFIX, '\0'))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        g_unlink (path);
      }
}

/* Cleans what killed runs left in base: their stale named files and, from versions that loaded
 * the disk in a "qualify-stress-PID-XXXXXX" folder of their own, those folders. */
static void
clean_stale (const char *base)
{
  g_autoptr(GDir) dir = g_dir_open (base, 0, NULL);
  const char *name;

  clean_stale_files (base);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (names_dead_run (name, OLD_DIR_PREFIX, '-'))
      {
        g_autofree char *path = g_build_filename (base, name, NULL);

        clean_stale_files (path);
        g_rmdir (path);   /* only when empty: anything else in it is not ours */
      }
}

static gboolean
check_writable (const char  *dir,
                GError     **error)
{
  g_autofree char *probe = NULL;
  int fd = open (dir, O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600);
  int saved;

  if (fd >= 0)
    {
      close (fd);
      return TRUE;
    }
  if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)
    {
      probe = g_strdup_printf ("%s/" HDD_PROBE_PREFIX "%d", dir, (int) getpid ());
      fd = open (probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0)
        {
          unlink (probe);
          close (fd);
          return TRUE;
        }
    }
  saved = errno;
  g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK,
               _("Cannot write in %s: %s. Choose a writable directory on the disk to load with --dir."),
               dir, g_strerror (saved));
  return FALSE;
}

static gboolean
check_disk_space (QfStress  *stress,
                  GError   **error)
{
  struct statvfs sv;
  guint64 need = (guint64) stress->counts[KIND_HDD] * stress->config.hdd_bytes;
  guint64 free_bytes, size, margin, usable;

  if (statvfs (stress->hdd_dir, &sv) < 0)
    {
      int saved = errno;
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK,
                   _("Cannot check the free space of %s: %s."), stress->hdd_dir, g_strerror (saved));
      return FALSE;
    }
  free_bytes = (guint64) sv.f_bavail * sv.f_frsize;
  size = (guint64) sv.f_blocks * sv.f_frsize;
  margin = (guint64) (size * stress->config.disk_margin_pct / 100.0);
  usable = free_bytes > margin ? free_bytes - margin : 0;
  if (need > usable)
    {
      g_autofree char *s_need = format_size (need);
      g_autofree char *s_one = format_size (stress->config.hdd_bytes);
      g_autofree char *s_free = format_size (free_bytes);
      g_autofree char *s_margin = format_size (margin);
      g_autofree char *s_usable = format_size (usable);
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK,
                   _("Not enough free space in %s for a disk load of %s (%u × %s): %s free minus a safety margin of %s (%.0f %% of the file system) leaves %s. Use a smaller --hdd-bytes, fewer --hdd workers or another --dir."),
                   stress->hdd_dir, s_need, stress->counts[KIND_HDD], s_one, s_free, s_margin,
                   stress->config.disk_margin_pct, s_usable);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_memory (QfStress  *stress,
              GError   **error)
{
  g_autoptr(GError) local = NULL;
  guint64 need = (guint64) stress->counts[KIND_VM] * stress->config.vm_bytes;
  guint64 avail, margin, usable;

  stress->meminfo = qf_procstat_new (stress->root, QF_PROCSTAT_MEMINFO, &local);
  stress->mem_snap = qf_procstat_snapshot_new ();
  if (stress->meminfo == NULL || !qf_procstat_read (stress->meminfo, stress->mem_snap, &local))
    {
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_MEMORY,
                   _("Cannot read the available memory, so a memory load is not safe: %s"),
                   local->message);
      return FALSE;
    }
  avail = stress->mem_snap->mem_available_kb * 1024;
  margin = (guint64) (stress->mem_snap->mem_total_kb * 1024
                      * stress->config.mem_margin_pct / 100.0);
  usable = avail > margin ? avail - margin : 0;
  stress->mem_floor_kb = (guint64) (stress->mem_snap->mem_total_kb * stress->config.mem_margin_pct
                                    / 200.0);
  if (need > usable)
    {
      g_autofree char *s_need = format_size (need);
      g_autofree char *s_one = format_size (stress->config.vm_bytes);
      g_autofree char *s_avail = format_size (avail);
      g_autofree char *s_margin = format_size (margin);
      g_autofree char *s_usable = format_size (usable);
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_MEMORY,
                   _("A memory load of %s (%u × %s) is more than this PC can give safely: %s available minus a safety margin of %s (%.0f %% of the RAM) leaves %s. Use fewer --vm workers or a smaller --vm-bytes."),
                   s_need, stress->counts[KIND_VM], s_one, s_avail, s_margin,
                   stress->config.mem_margin_pct, s_usable);
      return FALSE;
    }
  return TRUE;
}

/* The hdd workers write their unnamed (or at once unlinked) files straight into the directory,
 * --dir or the temp base: no folder of our own, so even a run killed with SIGKILL leaves no
 * entry behind. */
static gboolean
prepare_hdd_dir (QfStress    *stress,
                 const char  *dir,
                 GError     **error)
{
  if (dir != NULL && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_DISK,
                   _("%s is not a directory. Give an existing directory on the disk to load with --dir."),
                   dir);
      return FALSE;
    }
  stress->hdd_dir = g_strdup (dir != NULL ? dir : choose_temp_base ());
  clean_stale (stress->hdd_dir);
  return check_writable (stress->hdd_dir, error) && check_disk_space (stress, error);
}

QfStress *
qf_stress_new (const QfStressConfig  *config,
               GError               **error)
{
  g_autoptr(QfStress) stress = NULL;
  guint total;

  g_return_val_if_fail (config != NULL, NULL);

  stress = g_new0 (QfStress, 1);
  stress->config = *config;
  stress->config.dir = NULL;
  stress->config.root = NULL;
  stress->root = g_strdup (config->root);
  stress->workers = g_array_new (FALSE, TRUE, sizeof (Worker));
  stress->result.steps = g_array_new (FALSE, TRUE, sizeof (QfStressStep));
  stress->counts[KIND_CPU] = config->cpu;
  stress->counts[KIND_IO] = config->io;
  stress->counts[KIND_VM] = config->vm;
  stress->counts[KIND_HDD] = config->hdd;
  if (stress->config.vm_bytes == 0)
    stress->config.vm_bytes = QF_STRESS_DEFAULT_VM_BYTES;
  if (stress->config.hdd_bytes == 0)
    stress->config.hdd_bytes = QF_STRESS_DEFAULT_HDD_BYTES;
  if (stress->config.mem_margin_pct <= 0.0)
    stress->config.mem_margin_pct = QF_STRESS_DEFAULT_MARGIN_PCT;
  if (stress->config.disk_margin_pct <= 0.0)
    stress->config.disk_margin_pct = QF_STRESS_DEFAULT_MARGIN_PCT;

  total = config->cpu + config->io + config->vm + config->hdd;
  for (guint k = 0; k < N_KINDS; k++)
    if (stress->counts[k] > QF_STRESS_MAX_WORKERS)
      {
        g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_INVALID,
                     _("Too many %s workers: %u (at most %u)."), kind_names[k], stress->counts[k],
                     QF_STRESS_MAX_WORKERS);
        return NULL;
      }
  if (total == 0)
    {
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_INVALID,
                   _("No load chosen. Give at least one of --cpu, --io, --vm or --hdd."));
      return NULL;
    }
  if (!(config->timeout_s >= 0.0) || (config->steps > 1 && config->timeout_s <= 0.0))
    {
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_INVALID,
                   _("A stepped load needs a timeout to divide into steps."));
      return NULL;
    }
  if (config->steps > 1000)
    {
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_INVALID,
                   _("Too many load steps: %u (at most 1000)."), config->steps);
      return NULL;
    }
  if (config->vm > 0 && !check_memory (stress, error))
    return NULL;
  if (config->hdd > 0 && !prepare_hdd_dir (stress, config->dir, error))
    return NULL;

  stress->n_slots = total;
  stress->shared_size = sizeof (WorkerShared) * total;
  stress->shared = mmap (NULL, stress->shared_size, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (stress->shared == MAP_FAILED)
    {
      int saved = errno;
      stress->shared = NULL;
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_WORKER,
                   _("Cannot share memory with the workers: %s."), g_strerror (saved));
      return NULL;
    }
  stress->result.hdd_dir = stress->hdd_dir;
  return g_steal_pointer (&stress);
}

static guint
running_of (QfStress *stress,
            Kind      kind)
{
  guint n = 0;
  for (guint i = 0; i < stress->workers->len; i++)
    if (g_array_index (stress->workers, Worker, i).kind == kind)
      n++;
  return n;
}

static gboolean
spawn (QfStress  *stress,
       Kind       kind,
       GError   **error)
{
  Worker w = { 0, kind, stress->workers->len };
  WorkerShared *sh;
  pid_t pid;

  g_assert (w.slot < stress->n_slots);
  sh = &stress->shared[w.slot];
  if (kind == KIND_HDD)
    g_snprintf (sh->path, sizeof sh->path, "%s/" HDD_FILE_PREFIX "%d-%u", stress->hdd_dir,
                (int) stress->parent_pid, w.slot);
  pid = fork ();
  if (pid < 0)
    {
      int saved = errno;
      g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_WORKER,
                   _("Cannot start a %s worker: %s."), kind_names[kind], g_strerror (saved));
      return FALSE;
    }
  if (pid == 0)
    child_main (stress, kind, sh);
  w.pid = pid;
  g_array_append_val (stress->workers, w);
  return TRUE;
}

/* Brings each kind up to ceil(N·k/K) workers. */
static gboolean
spawn_step (QfStress  *stress,
            guint      k,
            guint      n_steps,
            GError   **error)
{
  QfStressStep step = { 0 };

  for (guint kind = 0; kind < N_KINDS; kind++)
    {
      guint target = (stress->counts[kind] * k + n_steps - 1) / n_steps;
      for (guint have = running_of (stress, kind); have < target; have++)
        if (!spawn (stress, kind, error))
          return FALSE;
    }
  step.cpu = running_of (stress, KIND_CPU);
  step.io = running_of (stress, KIND_IO);
  step.vm = running_of (stress, KIND_VM);
  step.hdd = running_of (stress, KIND_HDD);
  step.start_ns = qf_clock_now_ns ();
  if (stress->result.steps->len > 0)
    g_array_index (stress->result.steps, QfStressStep, stress->result.steps->len - 1).end_ns =
      step.start_ns;
  g_array_append_val (stress->result.steps, step);
  return TRUE;
}

static gboolean
start_load (QfStress  *stress,
            guint      n_steps,
            GError   **error)
{
  g_return_val_if_fail (!stress->running, FALSE);

  g_array_set_size (stress->workers, 0);
  g_array_set_size (stress->result.steps, 0);
  memset (stress->shared, 0, stress->shared_size);
  stress->result.cancelled = FALSE;
  stress->parent_pid = getpid ();
  stress->running = TRUE;
  stress->result.start_ns = qf_clock_now_ns ();
  if (!spawn_step (stress, 1, n_steps, error))
    {
      qf_stress_stop (stress);
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_stress_start (QfStress  *stress,
                 GError   **error)
{
  g_return_val_if_fail (stress != NULL, FALSE);
  return start_load (stress, 1, error);
}

static char *
describe_exit (int status)
{
  if (WIFSIGNALED (status))
    return g_strdup_printf (_("killed by signal %d (%s)"), WTERMSIG (status),
                            g_strsignal (WTERMSIG (status)));
  return g_strdup_printf (_("exit status %d"), WEXITSTATUS (status));
}

gboolean
qf_stress_poll (QfStress  *stress,
                GError   **error)
{
  g_return_val_if_fail (stress != NULL, FALSE);

  for (guint i = 0; i < stress->workers->len; i++)
    {
      Worker *w = &g_array_index (stress->workers, Worker, i);
      WorkerShared *sh = &stress->shared[w->slot];
      int status;
      pid_t r;
      int err;

      if (w->pid <= 0)
        continue;
      r = waitpid (w->pid, &status, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR))
        continue;
      w->pid = 0;
      err = __atomic_load_n (&sh->err, __ATOMIC_RELAXED);
      if (w->kind == KIND_HDD && err != 0)
        g_set_error (error, QF_STRESS_ERROR,
                      err == ENOSPC || err == EROFS || err == EACCES || err == EPERM
                        || err == EDQUOT
                        ? QF_STRESS_ERROR_DISK : QF_STRESS_ERROR_WORKER,
                      _("The disk load in %s stopped: %s. Choose another directory with --dir or a smaller --hdd-bytes."),
                      stress->hdd_dir, g_strerror (err));
      else if (w->kind == KIND_VM && err != 0)
        g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_MEMORY,
                     _("A memory worker could not map its memory: %s. Use a smaller --vm-bytes."),
                     g_strerror (err));
      else
        {
          g_autofree char *how = describe_exit (status);
          g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_WORKER,
                       _("A %s worker ended unexpectedly (%s)."), kind_names[w->kind], how);
        }
      return FALSE;
    }

  if (stress->meminfo != NULL && stress->counts[KIND_VM] > 0)
    {
      g_autoptr(GError) local = NULL;
      if (qf_procstat_read (stress->meminfo, stress->mem_snap, &local)
          && stress->mem_snap->mem_available_kb < stress->mem_floor_kb)
        {
          g_autofree char *s_avail = format_size (stress->mem_snap->mem_available_kb * 1024);
          g_autofree char *s_floor = format_size (stress->mem_floor_kb * 1024);
          g_set_error (error, QF_STRESS_ERROR, QF_STRESS_ERROR_MEMORY,
                       _("Stopped the memory load: available memory fell to %s, below the safety floor of %s. Use fewer --vm workers or a smaller --vm-bytes."),
                       s_avail, s_floor);
          return FALSE;
        }
    }
  return TRUE;
}

void
qf_stress_stop (QfStress *stress)
{
  g_return_if_fail (stress != NULL);

  if (!stress->running)
    return;
  for (guint i = 0; i < stress->workers->len; i++)
    {
      Worker *w = &g_array_index (stress->workers, Worker, i);
      if (w->pid > 0)
        kill (w->pid, SIGKILL);
    }
  for (guint i = 0; i < stress->workers->len; i++)
    {
      Worker *w = &g_array_index (stress->workers, Worker, i);
      while (w->pid > 0 && waitpid (w->pid, NULL, 0) < 0 && errno == EINTR)
        ;
      w->pid = 0;
    }
  stress->running = FALSE;
  stress->result.end_ns = qf_clock_now_ns ();
  stress->result.duration_s = (stress->result.end_ns - stress->result.start_ns) / 1e9;
  if (stress->result.steps->len > 0)
    g_array_index (stress->result.steps, QfStressStep, stress->result.steps->len - 1).end_ns =
      stress->result.end_ns;

  stress->result.bytes_written = 0;
  stress->result.vm_bytes_touched = 0;
  stress->result.cpu_loops = 0;
  stress->result.io_syncs = 0;
  stress->result.hdd_mode = NULL;
  for (guint i = 0; i < stress->workers->len; i++)
    {
      const Worker *w = &g_array_index (stress->workers, Worker, i);
      const WorkerShared *sh = &stress->shared[w->slot];
      switch (w->kind)
        {
        case KIND_CPU:
          stress->result.cpu_loops += sh->loops;
          break;
        case KIND_IO:
          stress->result.io_syncs += sh->loops;
          break;
        case KIND_VM:
          stress->result.vm_bytes_touched += sh->bytes;
          break;
        case KIND_HDD:
          stress->result.bytes_written += sh->bytes;
          if (sh->mode != 0)
            stress->result.hdd_mode = sh->mode == 1 ? "direct" : "fsync";
          break;
        case N_KINDS:
        default:
          break;
        }
    }
}

gboolean
qf_stress_run (QfStress          *stress,
               const gint        *cancel,
               QfStressTickFunc   tick,
               gpointer           user_data,
               GError           **error)
{
  guint n_steps, k = 1;
  gint64 t0, timeout_ns;

  g_return_val_if_fail (stress != NULL, FALSE);

  n_steps = stress->config.steps > 1 ? stress->config.steps : 1;
  timeout_ns = (gint64) (stress->config.timeout_s * 1e9);
  if (!start_load (stress, n_steps, error))
    return FALSE;
  t0 = stress->result.start_ns;

  for (;;)
    {
      gint64 now = qf_clock_now_ns (), elapsed = now - t0, wait_ns = POLL_NS;

      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          stress->result.cancelled = TRUE;
          break;
        }
      if (timeout_ns > 0 && elapsed >= timeout_ns)
        break;
      if (k < n_steps && elapsed >= timeout_ns / n_steps * k)
        {
          k++;
          if (!spawn_step (stress, k, n_steps, error))
            {
              qf_stress_stop (stress);
              return FALSE;
            }
        }
      if (!qf_stress_poll (stress, error))
        {
          qf_stress_stop (stress);
          return FALSE;
        }
      if (tick != NULL)
        tick (elapsed / 1e9, timeout_ns > 0 ? (gdouble) elapsed / timeout_ns : 0.0, user_data);
      if (timeout_ns > 0)
        wait_ns = MIN (wait_ns, timeout_ns - elapsed);
      if (k < n_steps)
        wait_ns = MIN (wait_ns, MAX (timeout_ns / n_steps * k - elapsed, 0));
      if (wait_ns > 0)
        {
          struct timespec ts = qf_ns_to_timespec (wait_ns);
          nanosleep (&ts, NULL);
        }
    }
  qf_stress_stop (stress);
  return TRUE;
}

const QfStressResult *
qf_stress_get_result (QfStress *stress)
{
  g_return_val_if_fail (stress != NULL, NULL);
  return &stress->result;
}

GArray *
qf_stress_get_pids (QfStress *stress)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (gint));

  g_return_val_if_fail (stress != NULL, pids);
  for (guint i = 0; i < stress->workers->len; i++)
    {
      gint pid = g_array_index (stress->workers, Worker, i).pid;
      if (pid > 0)
        g_array_append_val (pids, pid);
    }
  return pids;
}

void
qf_stress_free (QfStress *stress)
{
  if (stress == NULL)
    return;
  qf_stress_stop (stress);
  if (stress->shared != NULL)
    munmap (stress->shared, stress->shared_size);
  g_clear_pointer (&stress->meminfo, qf_procstat_free);
  g_clear_pointer (&stress->mem_snap, qf_procstat_snapshot_free);
  g_array_unref (stress->workers);
  g_array_unref (stress->result.steps);
  g_free (stress->hdd_dir);
  g_free (stress->root);
  g_free (stress);
}

gboolean
qf_stress_parse_size (const char *text,
                      guint64    *bytes)
{
  char *end;
  gdouble value;
  guint shift = 0;

  g_return_val_if_fail (bytes != NULL, FALSE);
  if (text == NULL || !(g_ascii_isdigit (*text) || *text == '.'))
    return FALSE;
  value = g_ascii_strtod (text, &end);
  switch (g_ascii_toupper (*end))
    {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
  if (g_ascii_toupper (*end) == 'I' && shift > 0)
    end++;
  if (g_ascii_toupper (*end) == 'B')
    end++;
  if (*end != '\0' || !(value >= 0.0) || value * (gdouble) (G_GUINT64_CONSTANT (1) << shift) > 1e18)
    return FALSE;
  *bytes = (guint64) (value * (gdouble) (G_GUINT64_CONSTANT (1) << shift));
  return TRUE;
}

gboolean
qf_stress_parse_duration (const char *text,
                          gdouble    *seconds)
{
  char *end;
  gdouble value, unit = 1.0;

  g_return_val_if_fail (seconds != NULL, FALSE);
  if (text == NULL || !(g_ascii_isdigit (*text) || *text == '.'))
    return FALSE;
  value = g_ascii_strtod (text, &end);
  switch (*end)
    {
    case 's': unit = 1.0; end++; break;
    case 'm': unit = 60.0; end++; break;
    case 'h': unit = 3600.0; end++; break;
    case 'd': unit = 86400.0; end++; break;
    case 'y': unit = 31536000.0; end++; break;
    default: break;
    }
  if (*end != '\0' || !(value >= 0.0) || !isfinite (value))
    return FALSE;
  *seconds = value * unit;
  return TRUE;
}
