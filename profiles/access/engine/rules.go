package engine

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Source types of spec.rules[].source.type.
const (
	SourceServiceAccount = "ServiceAccount"
	SourceSPIFFE         = "SPIFFE"
)

func parseRules(spec map[string]interface{}, path *field.Path, namespace string, s Settings) ([]Rule, field.ErrorList) {
	items, errs := list(spec, "rules", path, MaxRules, "add 1 to 10 rules, each naming a source and what it may call")
	if len(errs) > 0 {
		return nil, errs
	}
	rules := make([]Rule, 0, len(items))
	names := make(map[string]bool, len(items))
	firstExternal, firstInline := -1, -1
	for i, item := range items {
		ip := path.Index(i)
		m, ok := item.(map[string]interface{})
		if !ok {
			errs = append(errs, field.Invalid(ip, kindOf(item), "must be an object with name, source and authorization"))
			continue
		}
		var r Rule
		var es field.ErrorList
		r.Name, es = str(m, "name", ip, true, "name the rule with a DNS label, unique in the policy")
		errs = append(errs, es...)
		if len(es) == 0 {
			if msgs := validation.IsDNS1123Label(r.Name); len(msgs) > 0 {
				errs = append(errs, field.Invalid(ip.Child("name"), r.Name, joinMsgs(msgs)))
			} else if names[r.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), r.Name))
			}
			names[r.Name] = true
		}
		r.Source, es = parseSource(m, ip.Child("source"), namespace)
		errs = append(errs, es...)
		r.Type, r.Tools, es = parseAuthorization(m, ip.Child("authorization"))
		errs = append(errs, es...)
		typePath := ip.Child("authorization", "type")
		switch r.Type {
		case ExternalAuth:
			if firstExternal >= 0 {
				errs = append(errs, field.Forbidden(typePath, "a policy may hold at most one ExternalAuth rule, and "+path.Index(firstExternal).String()+" is one: move this rule to another policy"))
			} else {
				firstExternal = i
			}
			if firstInline >= 0 && !s.AllowMixedAuthorization {
				errs = append(errs, mixed(typePath, ExternalAuth, path.Index(firstInline), InlineTools))
			}
		case InlineTools:
			if firstInline < 0 {
				firstInline = i
			}
			if firstExternal >= 0 && !s.AllowMixedAuthorization {
				errs = append(errs, mixed(typePath, InlineTools, path.Index(firstExternal), ExternalAuth))
			}
		}
		rules = append(rules, r)
	}
	return rules, errs
}

func mixed(path *field.Path, this AuthorizationType, other *field.Path, otherType AuthorizationType) *field.Error {
	return field.Forbidden(path, "InlineTools and ExternalAuth rules may not be mixed in one policy ("+
		other.String()+" is "+string(otherType)+"): move this "+string(this)+" rule to another policy")
}

func parseSource(rule map[string]interface{}, path *field.Path, namespace string) (Principal, field.ErrorList) {
	src, present, errs := object(rule, "source", path.Root())
	if len(errs) > 0 {
		return Principal{}, field.ErrorList{field.Invalid(path, "not an object", "must be an object with type and serviceAccount or spiffe")}
	}
	if !present {
		return Principal{}, field.ErrorList{field.Required(path, "set source.type to ServiceAccount or SPIFFE, with serviceAccount or spiffe")}
	}
	typ, errs := str(src, "type", path, true, "set type to ServiceAccount or SPIFFE")
	if len(errs) > 0 {
		return Principal{}, errs
	}
	_, hasSA := src["serviceAccount"]
	_, hasSPIFFE := src["spiffe"]
	switch typ {
	case SourceServiceAccount:
		if hasSPIFFE {
			errs = append(errs, field.Forbidden(path.Child("spiffe"), "spiffe may be set only when type is SPIFFE: remove it or change type"))
		}
		sa, present, es := object(src, "serviceAccount", path)
		if len(es) > 0 {
			return Principal{}, append(errs, es...)
		}
		if !present {
			return Principal{}, append(errs, field.Required(path.Child("serviceAccount"), "set serviceAccount.name (and optionally namespace) for a ServiceAccount source"))
		}
		sp := path.Child("serviceAccount")
		name, es := str(sa, "name", sp, true, "set the ServiceAccount's name")
		errs = append(errs, es...)
		if len(es) == 0 {
			for _, msg := range validation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(sp.Child("name"), name, msg))
			}
		}
		ns, es := str(sa, "namespace", sp, false, "")
		errs = append(errs, es...)
		if len(es) == 0 && ns != "" {
			for _, msg := range validation.IsDNS1123Label(ns) {
				errs = append(errs, field.Invalid(sp.Child("namespace"), ns, msg))
			}
		}
		if ns == "" {
			ns = namespace
		}
		return Principal{ServiceAccount: ns + "/" + name}, errs
	case SourceSPIFFE:
		if hasSA {
			errs = append(errs, field.Forbidden(path.Child("serviceAccount"), "serviceAccount may be set only when type is ServiceAccount: remove it or change type"))
		}
		id, es := str(src, "spiffe", path, true, "set spiffe to a SPIFFE ID, spiffe://<trust-domain>/<path>")
		errs = append(errs, es...)
		if len(es) == 0 && !validSPIFFE(id) {
			errs = append(errs, field.Invalid(path.Child("spiffe"), id, "must be a SPIFFE ID: spiffe://<trust-domain>/<path>"))
		}
		return Principal{SPIFFE: id}, errs
	}
	return Principal{}, field.ErrorList{field.NotSupported(path.Child("type"), typ, []string{SourceServiceAccount, SourceSPIFFE})}
}

// parseAuthorization reads rule.authorization; omitted means AllTools.
func parseAuthorization(rule map[string]interface{}, path *field.Path) (AuthorizationType, []string, field.ErrorList) {
	auth, present, errs := object(rule, "authorization", path.Root())
	if len(errs) > 0 {
		return "", nil, field.ErrorList{field.Invalid(path, "not an object", "must be an object with type and tools or externalAuth, or omitted to allow every tool")}
	}
	if !present {
		return AllTools, nil, nil
	}
	typ, errs := str(auth, "type", path, true, "set type to InlineTools or ExternalAuth, or omit authorization to allow every tool")
	if len(errs) > 0 {
		return "", nil, errs
	}
	rawTools, hasTools := auth["tools"]
	_, hasExt := auth["externalAuth"]
	switch AuthorizationType(typ) {
	case InlineTools:
		if hasExt {
			errs = append(errs, field.Forbidden(path.Child("externalAuth"), "externalAuth may be set only when type is ExternalAuth: remove it or change type"))
		}
		if !hasTools || rawTools == nil {
			return InlineTools, nil, append(errs, field.Required(path.Child("tools"), "list the tools this source may call ([] allows none)"))
		}
		items, ok := rawTools.([]interface{})
		if !ok {
			return InlineTools, nil, append(errs, field.Invalid(path.Child("tools"), kindOf(rawTools), "must be a list of tool names"))
		}
		tools := make([]string, 0, len(items))
		seen := make(map[string]bool, len(items))
		for i, it := range items {
			tp := path.Child("tools").Index(i)
			t, ok := it.(string)
			switch {
			case !ok:
				errs = append(errs, field.Invalid(tp, kindOf(it), "must be a tool name"))
			case t == "":
				errs = append(errs, field.Required(tp, "name the tool"))
			case seen[t]:
				errs = append(errs, field.Duplicate(tp, t))
			default:
				seen[t] = true
				tools = append(tools, t)
			}
		}
		return InlineTools, tools, errs
	case ExternalAuth:
		if hasTools {
			errs = append(errs, field.Forbidden(path.Child("tools"), "tools may be set only when type is InlineTools: remove them or change type"))
		}
		ext, present, es := object(auth, "externalAuth", path)
		if len(es) > 0 {
			return ExternalAuth, nil, append(errs, es...)
		}
		if !present {
			return ExternalAuth, nil, append(errs, field.Required(path.Child("externalAuth"), "set externalAuth to the authorization service (protocol and backendRef)"))
		}
		return ExternalAuth, nil, append(errs, checkExternalAuth(ext, path.Child("externalAuth"))...)
	}
	return "", nil, field.ErrorList{field.NotSupported(path.Child("type"), typ, []string{string(InlineTools), string(ExternalAuth)})}
}

// checkExternalAuth checks the parts of a Gateway API HTTPExternalAuthFilter that evaluation relies on.
func checkExternalAuth(ext map[string]interface{}, path *field.Path) field.ErrorList {
	proto, errs := str(ext, "protocol", path, true, "set protocol to HTTP or GRPC")
	if len(errs) == 0 && proto != "HTTP" && proto != "GRPC" {
		errs = append(errs, field.NotSupported(path.Child("protocol"), proto, []string{"HTTP", "GRPC"}))
	}
	ref, present, es := object(ext, "backendRef", path)
	errs = append(errs, es...)
	if len(es) == 0 && !present {
		errs = append(errs, field.Required(path.Child("backendRef"), "set backendRef to the authorization service"))
	}
	if present && len(es) == 0 {
		_, es = str(ref, "name", path.Child("backendRef"), true, "name the authorization service")
		errs = append(errs, es...)
	}
	return errs
}
