"""The flight sample's two $metadata documents: well formed, internally consistent, twins."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import backends

V4 = "{http://docs.oasis-open.org/odata/ns/edm}"
V2 = "{http://schemas.microsoft.com/ado/2008/09/edm}"
SETS = {"TravelagencyCollection": "Travelagency", "CarrierCollection": "Carrier",
        "FlightCollection": "Flight", "BookingCollection": "Booking"}


def parse(path):
    root = ET.parse(path).getroot()
    schema = next(root.iter(V4 + "Schema"), None)
    if schema is None:
        schema = next(root.iter(V2 + "Schema"))
    return root, schema


def names(schema, ns, tag):
    return {schema.get("Namespace") + "." + e.get("Name") for e in schema.findall(ns + tag)}


def structure(schema, ns):
    out = {}
    for es in schema.iter(ns + "EntitySet"):
        et = next(t for t in schema.findall(ns + "EntityType")
                  if schema.get("Namespace") + "." + t.get("Name") == es.get("EntityType"))
        out[es.get("Name")] = (
            es.get("EntityType"),
            [r.get("Name") for r in et.findall(f"{ns}Key/{ns}PropertyRef")],
            [p.get("Name") for p in et.findall(ns + "Property")],
            sorted(n.get("Name") for n in et.findall(ns + "NavigationProperty")))
    return out


def check_type_ref(type_name, known):
    inner = type_name[11:-1] if type_name.startswith("Collection(") else type_name
    assert inner.startswith("Edm.") or inner in known, type_name


def test_v4_is_consistent():
    root, schema = parse(backends.METADATA_V4)
    assert root.get("Version") == "4.0" and schema.get("Namespace") == "RMTSAMPLEFLIGHT"
    entity_types = names(schema, V4, "EntityType")
    known = entity_types | names(schema, V4, "ComplexType")
    types = {schema.get("Namespace") + "." + e.get("Name"): e for e in schema.findall(V4 + "EntityType")}
    for et in types.values():
        props = {p.get("Name"): p for p in et.findall(V4 + "Property")}
        for ref in et.findall(f"{V4}Key/{V4}PropertyRef"):
            assert props[ref.get("Name")].get("Nullable") == "false"
        for p in props.values():
            check_type_ref(p.get("Type"), known)
        for nav in et.findall(V4 + "NavigationProperty"):
            check_type_ref(nav.get("Type"), entity_types)
            target = types[nav.get("Type").removeprefix("Collection(").removesuffix(")")]
            partner = nav.get("Partner")
            assert partner in {n.get("Name") for n in target.findall(V4 + "NavigationProperty")}
            target_props = {p.get("Name") for p in target.findall(V4 + "Property")}
            for rc in nav.findall(V4 + "ReferentialConstraint"):
                assert rc.get("Property") in props and rc.get("ReferencedProperty") in target_props
    functions = names(schema, V4, "Function")
    actions = names(schema, V4, "Action")
    for op in schema.findall(V4 + "Function") + schema.findall(V4 + "Action"):
        for p in op.findall(V4 + "Parameter"):
            check_type_ref(p.get("Type"), known)
        check_type_ref(op.find(V4 + "ReturnType").get("Type"), known)
    container = schema.find(V4 + "EntityContainer")
    sets = {es.get("Name"): es for es in container.findall(V4 + "EntitySet")}
    assert {n: e.get("EntityType") for n, e in sets.items()} == {
        n: "RMTSAMPLEFLIGHT." + t for n, t in SETS.items()}
    for es in sets.values():
        navs = {n.get("Name") for n in types[es.get("EntityType")].findall(V4 + "NavigationProperty")}
        bindings = {b.get("Path"): b.get("Target") for b in es.findall(V4 + "NavigationPropertyBinding")}
        assert set(bindings) == navs and set(bindings.values()) <= set(sets)
    for fi in container.findall(V4 + "FunctionImport"):
        assert fi.get("Function") in functions and fi.get("EntitySet", "TravelagencyCollection") in sets
    for ai in container.findall(V4 + "ActionImport"):
        assert ai.get("Action") in actions


def test_v2_is_consistent():
    root, schema = parse(backends.METADATA_V2)
    m = "{http://schemas.microsoft.com/ado/2007/08/dataservices/metadata}"
    assert root.get("Version") == "1.0"
    assert root.find("{http://schemas.microsoft.com/ado/2007/06/edmx}DataServices").get(
        m + "DataServiceVersion") == "2.0"
    entity_types = names(schema, V2, "EntityType")
    known = entity_types | names(schema, V2, "ComplexType")
    assocs = {schema.get("Namespace") + "." + a.get("Name"): a for a in schema.findall(V2 + "Association")}
    types = {schema.get("Namespace") + "." + e.get("Name"): e for e in schema.findall(V2 + "EntityType")}
    for name, et in types.items():
        props = {p.get("Name") for p in et.findall(V2 + "Property")}
        for p in et.findall(V2 + "Property"):
            check_type_ref(p.get("Type"), known)
        assert {r.get("Name") for r in et.findall(f"{V2}Key/{V2}PropertyRef")} <= props
        assert [p.get("Name") for p in et.findall(V2 + "Property")
                if p.get("ConcurrencyMode") == "Fixed"] == ["ChangedAt"]
        for nav in et.findall(V2 + "NavigationProperty"):
            assoc = assocs[nav.get("Relationship")]
            roles = {e.get("Role"): e.get("Type") for e in assoc.findall(V2 + "End")}
            assert roles[nav.get("FromRole")] == name and roles[nav.get("ToRole")] in entity_types
    for assoc in assocs.values():
        roles = {e.get("Role"): e.get("Type") for e in assoc.findall(V2 + "End")}
        rc = assoc.find(V2 + "ReferentialConstraint")
        for side in ("Principal", "Dependent"):
            el = rc.find(V2 + side)
            side_props = {p.get("Name") for p in types[roles[el.get("Role")]].findall(V2 + "Property")}
            assert {r.get("Name") for r in el.findall(V2 + "PropertyRef")} <= side_props
    container = schema.find(V2 + "EntityContainer")
    sets = {es.get("Name"): es.get("EntityType") for es in container.findall(V2 + "EntitySet")}
    assert sets == {n: "RMTSAMPLEFLIGHT." + t for n, t in SETS.items()}
    for aset in container.findall(V2 + "AssociationSet"):
        assoc = assocs[aset.get("Association")]
        roles = {e.get("Role"): e.get("Type") for e in assoc.findall(V2 + "End")}
        for end in aset.findall(V2 + "End"):
            assert sets[end.get("EntitySet")] == roles[end.get("Role")]
    for fi in container.findall(V2 + "FunctionImport"):
        check_type_ref(fi.get("ReturnType"), known)
        assert fi.get(m + "HttpMethod") in ("GET", "POST")
        assert fi.get("EntitySet") is None or fi.get("EntitySet") in sets
    assert {fi.get("Name") for fi in container.findall(V2 + "FunctionImport")} == {
        "GetAgencyDetails", "GetFlightDetails", "UpdateAgencyPhoneNo"}


def test_v2_and_v4_are_twins():
    _, v4 = parse(backends.METADATA_V4)
    _, v2 = parse(backends.METADATA_V2)
    assert structure(v4, V4) == structure(v2, V2)
