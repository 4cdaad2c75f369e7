#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <stddef.h>
#include "CFuseShims.h"

int bfs_fuse_loop_mt(struct fuse_session *session, unsigned max_threads, unsigned idle_threads, int clone_fd) {
    struct fuse_loop_config *config = fuse_loop_cfg_create();
    if (config == NULL) return -1;
    fuse_loop_cfg_set_max_threads(config, max_threads);
    fuse_loop_cfg_set_idle_threads(config, idle_threads);
    fuse_loop_cfg_set_clone_fd(config, clone_fd);
    int result = fuse_session_loop_mt(session, config);
    fuse_loop_cfg_destroy(config);
    return result;
}
