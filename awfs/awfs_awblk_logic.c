// SPDX-License-Identifier: GPL-2.0
/* awblk's write rules, compiled into awfs too (the same checks and errnos). */
#include "../awblk/awblk_logic.c"
