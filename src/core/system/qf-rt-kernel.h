/* qf-rt-kernel.h — how to get a real-time (PREEMPT_RT) kernel on the release a PC runs
 * (src/core). The one place the advice and the system audit take a kernel package or command
 * from; docs/releases.md says why each release gets what it gets. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  QF_RT_KERNEL_ARCHIVE,   /* the release's archive has a maintained PREEMPT_RT kernel: package */
  QF_RT_KERNEL_PRO,       /* the maintained PREEMPT_RT kernel comes with Ubuntu Pro; package is
                           * the archive's low-latency kernel, which is not PREEMPT_RT */
} QfRtKernelSource;

typedef struct
{
  const char       *os_id;       /* os-release ID: "debian", "ubuntu" */
  const char       *version_id;  /* os-release VERSION_ID; NULL: any version of os_id */
  const char       *name;        /* the release as the advice names it: "Ubuntu 24.04" */
  QfRtKernelSource  source;
  const char       *package;
} QfRtKernel;

/* The row for a release (os-release ID and VERSION_ID; either may be NULL), or NULL for a release
 * the table does not know. */
const QfRtKernel *qf_rt_kernel_find   (const char *os_id,
                                       const char *version_id);

/* One or two translated sentences telling how to install a PREEMPT_RT kernel on that release,
 * with the commands to paste (packages quoted by qf_text_shell_word); for an unknown release a
 * generic sentence that names no package. */
char             *qf_rt_kernel_advice (const char *os_id,
                                       const char *version_id);

G_END_DECLS
