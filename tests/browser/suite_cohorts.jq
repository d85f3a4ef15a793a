# suite_cohorts.jq -- tests/fixtures/sweep-suite.json grown to two cohorts whose suite decisions
# differ: node1 and node2 are model X as they were; node3 and node4 (model Y) ran node1's and
# node2's passes again, with 'seq write 1M' 12 % lower on every candidate point, so that Y's own
# seq write row loses and no_loss keeps Y's baseline while X keeps its best.
def ynode(n; name):
  n | .node = name
    | .passes |= map(.workloads |= map(if .name == "seq write 1M"
                                       then .metrics |= with_entries(.value *= 0.88) else . end));
.plan.cohort_by = ["model"] | .cohort_by = ["model"]
| .plan.nodes += [{"name": "node3", "url": "http://10.0.0.3:7070", "device": "sdb"},
                  {"name": "node4", "url": "http://10.0.0.4:7070", "device": "sdb"}]
| .nodes = [(.nodes[0] | .identity = {"model": "X"}), (.nodes[1] | .identity = {"model": "X"}),
            (.nodes[0] | .name = "node3" | .url = "http://10.0.0.3:7070" | .identity = {"model": "Y"}),
            (.nodes[1] | .name = "node4" | .url = "http://10.0.0.4:7070" | .identity = {"model": "Y"})]
| .points |= map(. as $p | .nodes = (.nodes + [
     (if $p.role == "baseline" then (.nodes[0] | .node = "node3") else ynode(.nodes[0]; "node3") end),
     (if $p.role == "baseline" then (.nodes[1] | .node = "node4") else ynode(.nodes[1]; "node4") end)]))
