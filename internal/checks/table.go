package checks

import "github.com/precedent-dev/precedent/internal/policy"

var (
	targeted = []policy.ProfileName{policy.ProfileDefaultsOverrides, policy.ProfileGEP713}
	do       = []policy.ProfileName{policy.ProfileDefaultsOverrides}
	gep713   = []policy.ProfileName{policy.ProfileGEP713}
)

// Targets are the IDs of the checks of target references, which a model registering its own
// checks (Register) may run too.
var Targets = []string{"target-required", "target-no-namespace", "target-name-required", "target-group-supported",
	"target-kind-supported", "target-same-kind", "target-unique"}

// table is every stateless check, in the order they run. Kuadrant's own live in its folder and
// join the table when the profiles' table is installed (profiles.Install → Register). The mesh and
// access profiles check their kinds in their own packages (mesh.Parse, access.Parse); they have no
// entry here.
var table = []Check{
	{ID: "target-required", Profiles: targeted, Path: "spec.targetRef", Scope: PerPolicy,
		Message: "a policy must target something (spec.targetRef or spec.targetRefs)",
		Go:      targetRequired, CEL: targetRequiredCEL},
	{ID: "target-no-namespace", Profiles: targeted, Path: "spec.targetRef.namespace", Scope: PerTarget,
		Message: "a local target reference has no namespace",
		Go:      targetNoNamespace, CEL: targetNoNamespaceCEL},
	{ID: "target-name-required", Profiles: targeted, Path: "spec.targetRef.name", Scope: PerTarget,
		Message: "a target reference names its target",
		Go:      targetNameRequired, CEL: targetNameRequiredCEL},
	{ID: "target-group-supported", Profiles: targeted, Path: "spec.targetRef.group", Scope: PerTarget,
		Message: "the target's group is one the kind may target",
		Go:      targetGroupSupported, CEL: targetGroupSupportedCEL},
	{ID: "target-kind-supported", Profiles: targeted, Path: "spec.targetRef.kind", Scope: PerTarget,
		Message: "the target's kind is one the kind may target",
		Go:      targetKindSupported, CEL: targetKindSupportedCEL},
	{ID: "target-same-kind", Profiles: targeted, Path: "spec.targetRefs[*].kind", Scope: PerTarget,
		Message: "all targets have the same group and kind",
		Go:      targetSameKind, CEL: targetSameKindCEL},
	{ID: "target-unique", Profiles: targeted, Path: "spec.targetRefs[*]", Scope: PerTarget,
		Message: "no target is named twice",
		Go:      targetUnique, CEL: targetUniqueCEL},

	{ID: "gep713-default-or-override", Profiles: gep713, Path: "spec", Scope: PerPolicy,
		Message: "GEP-713 kinds need spec.default or spec.override",
		Go:      gep713DefaultOrOverride, CEL: gep713DefaultOrOverrideCEL},

	{ID: "do-bare-with-blocks", Profiles: do, Path: "spec.<rules>", Scope: PerPolicy,
		Message: "bare rules cannot be combined with spec.defaults or spec.overrides",
		Go:      doBareWithBlocks, CEL: doBareWithBlocksCEL},
	{ID: "do-not-empty", Profiles: do, Path: "spec", Scope: PerPolicy,
		Message: "a policy needs bare rules, spec.defaults, spec.overrides or spec.unset",
		Go:      doNotEmpty, CEL: doNotEmptyCEL},
	{ID: "do-strategy", Profiles: do, Path: "spec.defaults.strategy", Scope: PerBlock,
		Message: "strategy is atomic or merge",
		Go:      doStrategy, CEL: doStrategyCEL},
	{ID: "do-when-compiles", Profiles: do, Path: "spec.defaults.when", Scope: PerBlock,
		Message: "the block's condition compiles, is boolean and within the cost limit (webhook only)",
		Go:      doWhenCompiles},
	{ID: "unset-switched-off", Profiles: do, Path: "spec.unset", Scope: PerPolicy, Params: true,
		Message: "no spec.unset while the cluster administrator switches unset off (PrecedentConfig cluster)",
		Go:      unsetSwitchedOff, CEL: unsetSwitchedOffCEL},
	{ID: "unset-id-format", Profiles: do, Path: "spec.unset[*]", Scope: PerUnset,
		Message: "each unset entry is a well-formed rule id",
		Go:      unsetIDFormat, CEL: unsetIDFormatCEL},
	{ID: "unset-duplicate", Profiles: do, Path: "spec.unset[*]", Scope: PerUnset,
		Message: "each rule id is unset once",
		Go:      unsetDuplicate, CEL: unsetDuplicateCEL},
	{ID: "unset-declared", Profiles: do, Path: "spec.unset[*]", Scope: PerUnset,
		Message: "unset names no rule the policy declares itself",
		Go:      unsetDeclared, CEL: unsetDeclaredCEL},
}
