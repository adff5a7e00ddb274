/* qf-tracefs.c — a tracefs instance of our own (src/engine); see qf-tracefs.h.
 *
 * Every path this file opens is below the tracefs mount; nothing else in the engine opens one.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-tracefs.h"

G_DEFINE_QUARK (qf-trace-error-quark, qf_trace_error)

const char *const qf_trace_event_names[QF_TRACE_N_EVENTS] = {
  "sched/sched_switch",
  "sched/sched_waking",
  "sched/sched_wakeup",
  "irq/irq_handler_entry",
  "irq/irq_handler_exit",
  "irq/softirq_entry",
  "irq/softirq_exit",
  "timer/hrtimer_expire_entry",
  "timer/hrtimer_expire_exit",
  "ftrace/print",
};

/* Without these the analysis cannot tell who ran or when the timer expired. */
static const char *const required_events[] = {
  "sched/sched_switch", "timer/hrtimer_expire_entry",
};

#define DEFAULT_MOUNT "/sys/kernel/tracing"
#define INSTANCE_PREFIX "qualify-"

struct QfTracefsInstance
{
  QfTracefsInfo info;
  char         *dir;         /* mount/instances/NAME */
};

static gint instance_counter;

void
qf_trace_fds_init (QfTraceFds *fds)
{
  memset (fds, 0, sizeof *fds);
  fds->marker_fd = -1;
  fds->header_page_fd = -1;
  for (guint i = 0; i < QF_TRACE_N_EVENTS; i++)
    fds->format_fd[i] = -1;
}

void
qf_trace_fds_close (QfTraceFds *fds)
{
  if (fds == NULL)
    return;
  if (fds->marker_fd >= 0)
    close (fds->marker_fd);
  if (fds->header_page_fd >= 0)
    close (fds->header_page_fd);
  for (guint i = 0; i < QF_TRACE_N_EVENTS; i++)
    if (fds->format_fd[i] >= 0)
      close (fds->format_fd[i]);
  for (guint i = 0; fds->cpu_fd != NULL && i < fds->n_cpus; i++)
    if (fds->cpu_fd[i] >= 0)
      close (fds->cpu_fd[i]);
  g_free (fds->cpu_fd);
  qf_trace_fds_init (fds);
}

/* The mount point of tracefs from /proc/self/mountinfo, or NULL. */
static char *
find_mount (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/mountinfo", &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      /* "36 25 0:12 / /sys/kernel/tracing rw,… - tracefs nodev rw" */
      const char *sep = strstr (lines[i], " - ");
      g_auto(GStrv) fields = NULL;

      if (sep == NULL || !g_str_has_prefix (sep + 3, "tracefs "))
        continue;
      fields = g_strsplit (lines[i], " ", 6);
      if (g_strv_length (fields) >= 5)
        return g_strcompress (fields[4]);   /* octal escapes such as \040 */
    }
  return NULL;
}

static gboolean
not_allowed (GError **error)
{
  g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_NOT_ALLOWED,
               _("Reading the kernel's trace needs root, or Qualify's system service qualifyd"));
  return FALSE;
}

gboolean
qf_tracefs_allowed (GError **error)
{
  g_autofree char *found = find_mount ();
  g_autofree char *instances = NULL;

  if (found == NULL)
    {
      if (geteuid () != 0)
        return not_allowed (error);
      if (!g_file_test (DEFAULT_MOUNT, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_NO_TRACEFS,
                       _("This kernel has no tracefs (%s is missing): it was built without "
                         "tracing, so the cause of a spike cannot be read"), DEFAULT_MOUNT);
          return FALSE;
        }
      return TRUE;
    }
  instances = g_build_filename (found, "instances", NULL);
  if (access (instances, W_OK) != 0)
    return not_allowed (error);
  return TRUE;
}

/* Mounts tracefs where the kernel offers it, when it is mounted nowhere. */
static char *
ensure_mount (gboolean *mounted,
              GError  **error)
{
  char *found = find_mount ();

  *mounted = FALSE;
  if (found != NULL)
    return found;
  if (!qf_tracefs_allowed (error))
    return NULL;
  if (mount ("nodev", DEFAULT_MOUNT, "tracefs", 0, NULL) != 0)
    {
      int err = errno;
      if (err == EPERM || err == EACCES)
        {
          not_allowed (error);
          return NULL;
        }
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_NO_TRACEFS,
                   _("Cannot mount tracefs on %s: %s"), DEFAULT_MOUNT, g_strerror (err));
      return NULL;
    }
  *mounted = TRUE;
  return g_strdup (DEFAULT_MOUNT);
}

/* Writes value to dir/rel, as `echo -n value > file`. */
static gboolean
write_file (const char *dir,
            const char *rel,
            const char *value,
            GError    **error)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  int fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  size_t len = strlen (value);
  ssize_t n;
  int err;

  if (fd < 0)
    {
      err = errno;
      g_set_error (error, QF_TRACE_ERROR,
                   err == EACCES || err == EPERM ? QF_TRACE_ERROR_NOT_ALLOWED : QF_TRACE_ERROR_FAILED,
                   _("Cannot open %s: %s"), path, g_strerror (err));
      return FALSE;
    }
  n = write (fd, value, len);
  err = errno;
  close (fd);
  if (n != (ssize_t) len)
    {
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FAILED, _("Cannot write “%s” to %s: %s"),
                   value, path, n < 0 ? g_strerror (err) : _("short write"));
      return FALSE;
    }
  return TRUE;
}

static char *
read_file (const char *dir,
           const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

/* Removes the instances of processes that have ended (a crash, a kill -9). */
static void
remove_stale_instances (const char *instances)
{
  DIR *dir = opendir (instances);
  struct dirent *entry;

  if (dir == NULL)
    return;
  while ((entry = readdir (dir)) != NULL)
    {
      long pid;
      char *end;

      if (!g_str_has_prefix (entry->d_name, INSTANCE_PREFIX))
        continue;
      pid = strtol (entry->d_name + strlen (INSTANCE_PREFIX), &end, 10);
      if (pid <= 0 || *end != '-' || (kill ((pid_t) pid, 0) != 0 && errno == ESRCH))
        {
          g_autofree char *path = g_build_filename (instances, entry->d_name, NULL);
          if (pid > 0 && *end == '-')
            rmdir (path);
        }
    }
  closedir (dir);
}

/* mkdir instances/qualify-<pid>-<n>, n counting up past names in use. */
static char *
make_instance (const char *where,
               pid_t       owner_pid,
               char      **name_out,
               GError    **error)
{
  g_autofree char *instances = g_build_filename (where, "instances", NULL);

  remove_stale_instances (instances);
  for (guint tries = 0; tries < 1000; tries++)
    {
      g_autofree char *name = g_strdup_printf (INSTANCE_PREFIX "%d-%d", (int) owner_pid,
                                               g_atomic_int_add (&instance_counter, 1));
      g_autofree char *dir = g_build_filename (instances, name, NULL);

      if (mkdir (dir, 0700) == 0)
        {
          *name_out = g_steal_pointer (&name);
          return g_steal_pointer (&dir);
        }
      if (errno != EEXIST)
        {
          int err = errno;
          if (err == EACCES || err == EPERM)
            not_allowed (error);
          else
            g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FAILED,
                         _("Cannot make the trace instance %s: %s"), dir, g_strerror (err));
          return NULL;
        }
    }
  g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FAILED,
               _("Cannot make a trace instance in %s: every name is taken"), instances);
  return NULL;
}

static int
open_below (const char *dir,
            const char *rel,
            int         flags)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);

  return open (path, flags | O_CLOEXEC);
}

/* Enables the events this kernel has; fills info's lists and the format descriptors. */
static gboolean
enable_events (QfTracefsInstance *self,
               QfTraceFds        *fds,
               GError           **error)
{
  g_autoptr(GPtrArray) on = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < QF_TRACE_N_EVENTS; i++)
    {
      const char *event = qf_trace_event_names[i];
      g_autofree char *format = g_strdup_printf ("events/%s/format", event);
      g_autofree char *enable = g_strdup_printf ("events/%s/enable", event);

      fds->format_fd[i] = open_below (self->dir, format, O_RDONLY);
      if (fds->format_fd[i] < 0)
        {
          g_ptr_array_add (missing, g_strdup (event));
          continue;
        }
      /* ftrace/print is the marker's record: always on, no enable file. */
      if (g_str_equal (event, "ftrace/print"))
        continue;
      if (!write_file (self->dir, enable, "1", error))
        return FALSE;
      g_ptr_array_add (on, g_strdup (event));
    }
  g_ptr_array_add (on, NULL);
  g_ptr_array_add (missing, NULL);
  self->info.events = (GStrv) g_ptr_array_steal (on, NULL);
  self->info.events_missing = (GStrv) g_ptr_array_steal (missing, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (required_events); i++)
    if (g_strv_contains ((const char *const *) self->info.events_missing, required_events[i]))
      {
        g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_NO_EVENTS,
                     _("This kernel lacks the tracepoint %s, which the analysis needs"),
                     required_events[i]);
        return FALSE;
      }
  return TRUE;
}

/* The descriptors a reader needs besides the formats. */
static gboolean
open_readers (QfTracefsInstance *self,
              QfTraceFds        *fds,
              GError           **error)
{
  long n_cpus = sysconf (_SC_NPROCESSORS_CONF);

  fds->marker_fd = open_below (self->dir, "trace_marker", O_WRONLY);
  fds->header_page_fd = open_below (self->dir, "events/header_page", O_RDONLY);
  if (fds->marker_fd < 0 || fds->header_page_fd < 0)
    {
      g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FAILED,
                   _("Cannot open the trace instance’s marker or page header in %s: %s"),
                   self->dir, g_strerror (errno));
      return FALSE;
    }
  fds->n_cpus = (guint) CLAMP (n_cpus, 1, 8192);
  fds->cpu_fd = g_new (int, fds->n_cpus);
  for (guint cpu = 0; cpu < fds->n_cpus; cpu++)
    {
      g_autofree char *rel = g_strdup_printf ("per_cpu/cpu%u/trace_pipe_raw", cpu);
      fds->cpu_fd[cpu] = open_below (self->dir, rel, O_RDONLY | O_NONBLOCK);
    }
  return TRUE;
}

/* Clock, buffer size, events, then the descriptors. */
static gboolean
configure (QfTracefsInstance     *self,
           const QfTracefsConfig *config,
           QfTraceFds            *fds,
           GError               **error)
{
  g_autofree char *size = g_strdup_printf ("%u", config->buffer_kb ? config->buffer_kb
                                                                   : QF_TRACEFS_DEFAULT_BUFFER_KB);
  g_autofree char *taken = NULL;
  g_autofree char *tracers = NULL;

  if (!write_file (self->dir, "trace_clock", "mono", error) ||
      !write_file (self->dir, "buffer_size_kb", size, error))
    return FALSE;
  self->info.clock = g_strdup ("mono");
  taken = read_file (self->dir, "buffer_size_kb");
  self->info.buffer_kb = taken != NULL ? (guint) g_ascii_strtoull (taken, NULL, 10) : 0;
  tracers = read_file (self->dir, "available_tracers");
  self->info.tracers = g_strsplit_set (tracers != NULL ? tracers : "", " \n", -1);
  {
    /* drop the empty strings g_strsplit_set leaves between separators */
    guint j = 0;
    for (guint i = 0; self->info.tracers[i] != NULL; i++)
      if (*self->info.tracers[i] != '\0')
        self->info.tracers[j++] = self->info.tracers[i];
      else
        g_free (self->info.tracers[i]);
    self->info.tracers[j] = NULL;
  }
  if (!enable_events (self, fds, error) || !open_readers (self, fds, error))
    return FALSE;
  return write_file (self->dir, "tracing_on", "1", error);
}

void
qf_tracefs_info_clear (QfTracefsInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->instance);
  g_free (info->mount);
  g_free (info->clock);
  g_strfreev (info->events);
  g_strfreev (info->events_missing);
  g_strfreev (info->tracers);
  memset (info, 0, sizeof *info);
}

static void
instance_free (QfTracefsInstance *self)
{
  qf_tracefs_info_clear (&self->info);
  g_free (self->dir);
  g_free (self);
}

QfTracefsInstance *
qf_tracefs_instance_open (const QfTracefsConfig *config,
                          QfTraceFds            *fds,
                          GError               **error)
{
  QfTracefsInstance *self;
  QfTracefsConfig defaults = { 0 };
  gboolean mounted = FALSE;
  char *where;

  g_return_val_if_fail (fds != NULL, NULL);
  qf_trace_fds_init (fds);
  if (config == NULL)
    config = &defaults;
  where = ensure_mount (&mounted, error);
  if (where == NULL)
    return NULL;
  self = g_new0 (QfTracefsInstance, 1);
  self->info.mount = where;
  self->info.mounted = mounted;
  self->dir = make_instance (where, config->owner_pid > 0 ? config->owner_pid : getpid (),
                             &self->info.instance, error);
  if (self->dir == NULL)
    {
      instance_free (self);
      return NULL;
    }
  if (!configure (self, config, fds, error))
    {
      qf_trace_fds_close (fds);
      qf_tracefs_instance_remove (self, NULL);
      return NULL;
    }
  return self;
}

const QfTracefsInfo *
qf_tracefs_instance_info (const QfTracefsInstance *instance)
{
  g_return_val_if_fail (instance != NULL, NULL);
  return &instance->info;
}

void
qf_tracefs_instance_stop (QfTracefsInstance *instance)
{
  g_return_if_fail (instance != NULL);
  write_file (instance->dir, "tracing_on", "0", NULL);
}

gboolean
qf_tracefs_instance_remove (QfTracefsInstance *instance,
                            GError           **error)
{
  gboolean ok = TRUE;

  if (instance == NULL)
    return TRUE;
  write_file (instance->dir, "tracing_on", "0", NULL);
  /* The kernel may still hold a reference for a moment after the last descriptor closed (a
   * reader's page being released): try for up to a second. */
  for (guint tries = 0; rmdir (instance->dir) != 0; tries++)
    {
      if (errno == ENOENT)
        break;
      if (errno != EBUSY || tries >= 100)
        {
          g_set_error (error, QF_TRACE_ERROR, QF_TRACE_ERROR_FAILED,
                       _("Cannot remove the trace instance %s: %s. Remove it as root with "
                         "rmdir %s"), instance->dir, g_strerror (errno), instance->dir);
          ok = FALSE;
          break;
        }
      g_usleep (10000);
    }
  instance_free (instance);
  return ok;
}
