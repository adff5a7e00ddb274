/* qf-rt-kernel.c — per release, how to get a real-time (PREEMPT_RT) kernel (src/core).
 *
 * Read from each release's archive (amd64, December 2026):
 *   - Debian 12 and 13: linux-image-rt-amd64 in main, maintained with the release's kernel.
 *   - Ubuntu 22.04 and 24.04: the maintained real-time kernel is Ubuntu Pro's realtime-kernel.
 *     The archive's universe holds one old linux-realtime build each (5.15.0-1032 on 22.04,
 *     6.8.1-1015 on 24.04, in -updates) that gets no updates, so it is not advised; without Pro
 *     the advice is linux-lowlatency (main, maintained), a low-latency kernel that is not
 *     PREEMPT_RT.
 *   - Ubuntu 26.04: linux-realtime in main (7.0.0-14 at release, updated in resolute-updates).
 * Any other Debian release also has linux-image-rt-amd64; any other release gets a sentence that
 * names no package. */
#include "config.h"

#include "qf-i18n.h"
#include "qf-rt-kernel.h"
#include "qf-text.h"

static const QfRtKernel rt_kernels[] = {
  { "debian", "12", "Debian 12", QF_RT_KERNEL_ARCHIVE, "linux-image-rt-amd64" },
  { "debian", "13", "Debian 13", QF_RT_KERNEL_ARCHIVE, "linux-image-rt-amd64" },
  { "ubuntu", "22.04", "Ubuntu 22.04", QF_RT_KERNEL_PRO, "linux-lowlatency" },
  { "ubuntu", "24.04", "Ubuntu 24.04", QF_RT_KERNEL_PRO, "linux-lowlatency" },
  { "ubuntu", "26.04", "Ubuntu 26.04", QF_RT_KERNEL_ARCHIVE, "linux-realtime" },
  /* testing, unstable, and releases after 13: the same package name since Debian 7 */
  { "debian", NULL, "Debian", QF_RT_KERNEL_ARCHIVE, "linux-image-rt-amd64" },
};

const QfRtKernel *
qf_rt_kernel_find (const char *os_id,
                   const char *version_id)
{
  if (os_id == NULL)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (rt_kernels); i++)
    {
      const QfRtKernel *row = &rt_kernels[i];

      if (g_str_equal (row->os_id, os_id) &&
          (row->version_id == NULL || g_strcmp0 (row->version_id, version_id) == 0))
        return row;
    }
  return NULL;
}

char *
qf_rt_kernel_advice (const char *os_id,
                     const char *version_id)
{
  const QfRtKernel *row = qf_rt_kernel_find (os_id, version_id);
  g_autofree char *package = NULL;

  if (row == NULL)
    return g_strdup (_("Install a real-time (PREEMPT_RT) kernel for this system and boot it; "
                       "Qualify does not know which package provides one on this release."));
  package = qf_text_shell_word (row->package);
  if (row->source == QF_RT_KERNEL_ARCHIVE)
    /* TRANSLATORS: %1$s is a release ("Debian 12"), %2$s a package name */
    return g_strdup_printf (_("Install the real-time (PREEMPT_RT) kernel of %1$s with "
                              "sudo apt install %2$s, then boot it."), row->name, package);
  /* TRANSLATORS: %1$s is a release ("Ubuntu 24.04"), %2$s a package name */
  return g_strdup_printf (_("On %1$s the maintained real-time (PREEMPT_RT) kernel comes with "
                            "Ubuntu Pro: sudo pro attach, then sudo pro enable realtime-kernel, "
                            "and boot it. Without Ubuntu Pro, sudo apt install %2$s gives a "
                            "low-latency kernel: better than the generic one, but not "
                            "PREEMPT_RT, so Qualify still counts it as not real-time."), row->name, package);
}
