package plan

import "strings"

// Spark plans NOT IN (subquery) over a single key as a null-aware anti
// join (Spark 3.1+, BroadcastHashJoinExec's isNullAwareAntiJoin): a probe
// row is dropped when its key matches a build row, but also when its key is
// null (and the build side is not empty) and when the build side holds a
// null key — SQL's three-valued NOT IN. EXPLAIN FORMATTED does not print
// the flag on the join; it shows on the build side's broadcast, whose mode
// is printed HashedRelationBroadcastMode(keys,true). markNullAwareJoins
// carries it to the join.

// broadcastNullAware reports whether a printed broadcast mode
// "HashedRelationBroadcastMode(List(…),true)" builds a null-aware relation.
func broadcastNullAware(mode string) bool {
	i := strings.IndexByte(mode, '(')
	if i < 0 || !strings.HasSuffix(mode, ")") || mode[:i] != "HashedRelationBroadcastMode" {
		return false
	}
	args, err := splitTop(mode[i+1:len(mode)-1], ",")
	return err == nil && len(args) >= 2 && strings.TrimSpace(args[len(args)-1]) == "true"
}

// markNullAwareJoins sets JoinInfo.NullAwareAnti on every left-anti
// broadcast hash join whose build side broadcasts a null-aware relation
// (directly, or through a ReusedExchange or a wrapper with one child).
func markNullAwareJoins(p *Plan) {
	_ = p.Walk(func(n *Node) error {
		j := n.Join
		if j == nil || n.Op != OpBroadcastHashJoin || j.Type != JoinLeftAnti || len(n.Children) != 2 {
			return nil
		}
		build := n.Children[1]
		if j.BuildSide == "left" {
			build = n.Children[0]
		}
		if b := broadcastOf(p, build); b != nil && b.NullAware {
			j.NullAwareAnti = true
		}
		return nil
	})
}

// broadcastOf finds the broadcast a join's build side reads.
func broadcastOf(p *Plan, n *Node) *BroadcastInfo {
	for hops := 0; n != nil && hops < maxTreeDepth; hops++ {
		switch {
		case n.Broadcast != nil:
			return n.Broadcast
		case n.Reused != nil:
			if n.Reused.ReusesID == 0 {
				return nil
			}
			n = p.Node(n.Reused.ReusesID)
		case len(n.Children) == 1:
			n = n.Children[0]
		default:
			return nil
		}
	}
	return nil
}
