/* sim/link/topos — the ops table each topology exports, one file per
 * topology under sim/link/. topo.c lists them in its registry; tests name a
 * topology through these.
 *
 *   topo_ring.c       ring, ring-uni
 *   topo_fullmesh.c   fullmesh
 *   topo_hypercube.c  hypercube
 *   topo_torus.c      torus, mesh
 *   topo_switch.c     switch
 *   topo_edges.c      edges
 *   topo_leafspine.c  leafspine
 *   topo_fattree.c    fattree
 *   topo_tiers.c      tiers
 *   topo_dragonfly.c  dragonfly
 */
#ifndef G5_SIM_LINK_TOPOS_H
#define G5_SIM_LINK_TOPOS_H

#include "sim/link/link.h"

extern const struct topo_ops topo_ring_ops;
extern const struct topo_ops topo_ring_uni_ops;
extern const struct topo_ops topo_fullmesh_ops;
extern const struct topo_ops topo_hypercube_ops;
extern const struct topo_ops topo_torus_ops;
extern const struct topo_ops topo_mesh_ops;
extern const struct topo_ops topo_switch_ops;
extern const struct topo_ops topo_edges_ops;
extern const struct topo_ops topo_leafspine_ops;
extern const struct topo_ops topo_fattree_ops;
extern const struct topo_ops topo_tiers_ops;
extern const struct topo_ops topo_dragonfly_ops;

#endif
