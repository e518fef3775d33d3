/** REDIS_CLUSTER_NODES: the seed nodes of a Redis Cluster. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** `host:port,host:port` (an IPv6 host in brackets: `[::1]:7000`) → nodes, or what is wrong with it. */
export function parseClusterNodes(value: string): ClusterNode[] | string {
  const nodes: ClusterNode[] = [];
  for (const entry of value.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (match === null || port < 1 || port > 65535) {
      return `"${entry.slice(0, 80)}" is not host:port; list the cluster's nodes as host:port,host:port (e.g. 10.0.0.1:6379,10.0.0.2:6379)`;
    }
    nodes.push({ host: (match[1] ?? '').replace(/^\[|\]$/g, ''), port });
  }
  if (nodes.length === 0) return "names no node; list the cluster's nodes as host:port,host:port";
  return nodes;
}
