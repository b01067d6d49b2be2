/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay's subbuf_start callback, and mapping a relay buffer.
 *
 * 6.1 and 6.12 pass it the padding of the sub-buffer relay leaves
 * (prev_padding); between 6.12 and 7.2 the argument went (with struct
 * rchan_buf's prev_padding).  Every version stores that padding in buf->padding[],
 * at the index of the sub-buffer left, before calling the callback
 * (relay_switch_subbuf()), so the callback reads it there on every
 * kernel.
 * scripts/kbuild/compat/relay.sh tells which prototype from <linux/relay.h>.
 *
 * Between 6.12 and 7.2 relay's file operations traded .mmap for
 * .mmap_prepare (a struct vm_area_desc to fill before the VMA exists),
 * which a file of ours, whose own hook is .mmap, calls through the
 * kernel's exported helpers for stacked file systems
 * (compat_set_desc_from_vma(), __compat_vma_mmap()); relay.sh tells
 * whether <linux/fs.h> has them, and which hook relay has is checked
 * when mapping.
 */
#ifndef _SLABTRACE_WRAPPER_RELAY_H
#define _SLABTRACE_WRAPPER_RELAY_H

#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/relay.h>

/**
 * slabtrace_relay_padding - the padding relay recorded for a sub-buffer
 * @buf: the channel buffer
 * @subbuf: one of its sub-buffers, one relay has switched away from
 *
 * Context: relay's callbacks (the writer's context).
 * Return: the bytes left unused at its end.
 */
static inline size_t slabtrace_relay_padding(struct rchan_buf *buf,
					     void *subbuf)
{
	return buf->padding[(subbuf - buf->start) / buf->chan->subbuf_size];
}

/*
 * The parameters of a subbuf_start callback, as this kernel declares them:
 * static int cb(SLABTRACE_SUBBUF_START_PARAMS(buf, subbuf, prev)).  The
 * padding argument of 6.1 and 6.12 goes unused: the callback reads it
 * with slabtrace_relay_padding(), the same value on every kernel.
 */
#ifdef SLABTRACE_RELAY_SUBBUF_START_NO_PADDING
#define SLABTRACE_SUBBUF_START_PARAMS(buf, subbuf, prev)		\
	struct rchan_buf *(buf), void *(subbuf), void *(prev)
#else
#define SLABTRACE_SUBBUF_START_PARAMS(buf, subbuf, prev)		\
	struct rchan_buf *(buf), void *(subbuf), void *(prev), size_t prev_padding
#endif

/**
 * slabtrace_relay_mmap - map a relay buffer, as relay's own file would
 * @file: an open file whose private_data is the relay buffer
 * @vma: the mapping being made
 *
 * Context: an mmap file operation (mmap_lock held for writing).
 * Return: 0, or a negative errno.
 */
static inline int slabtrace_relay_mmap(struct file *file,
				       struct vm_area_struct *vma)
{
#ifdef SLABTRACE_COMPAT_VMA_MMAP
	if (relay_file_operations.mmap_prepare) {
		struct vm_area_desc desc;
		int ret;

		compat_set_desc_from_vma(&desc, file, vma);
		ret = relay_file_operations.mmap_prepare(&desc);
		return ret ?: __compat_vma_mmap(&desc, vma);
	}
#endif
	if (!relay_file_operations.mmap)
		return -ENODEV;
	return relay_file_operations.mmap(file, vma);
}

#endif /* _SLABTRACE_WRAPPER_RELAY_H */
