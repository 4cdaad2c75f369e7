#ifndef BUNDLEFS_CFUSESHIMS_H
#define BUNDLEFS_CFUSESHIMS_H

struct fuse_session;

/// fuse_session_loop_mt, which fuse_lowlevel.h defines as a macro Swift cannot call.
int bfs_fuse_loop_mt(struct fuse_session *session, unsigned max_threads, unsigned idle_threads, int clone_fd);

#endif
