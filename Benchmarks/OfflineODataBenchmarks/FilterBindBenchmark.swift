@_spi(Tool) import OfflineOData

/// `filter-bind`: median time to parse and bind a request with a typical three-clause `$filter`
/// (issue 4's budget: ≤ 5 µs), and to parse, bind and translate it to SQL, each against parsing
/// the same request alone in the same run.
///
/// The request is `Agencies?$filter=City eq 'US' and Revenue gt 100.5 and startswith(Name,'Lufthansa')`
/// (a string comparison, a decimal comparison with numeric promotion, a canonical function) over
/// the reader tests' kind of model.
func filterBindBenchmark() throws {
    let reader = try benchmarkReader()
    let url = "Agencies?$filter=City eq 'US' and Revenue gt 100.5 and startswith(Name,'Lufthansa')"
    let parser = ODataURLParser(dialect: .v4)
    let iterations = 20_000
    var sink = 0
    let parseOnly = try Harness.median(iterations: iterations) {
        for _ in 0..<iterations { sink &+= try parser.parse(url).path.segments.count }
    }
    let binder = ODataBinder(model: reader.model, dialect: .v4)
    let bound = try Harness.median(iterations: iterations) {
        for _ in 0..<iterations { sink &+= try binder.bind(parser.parse(url)).options.orderBy.count + 1 }
    }
    let full = try Harness.median(iterations: iterations) {
        for _ in 0..<iterations { sink &+= try reader.translatedSQL(url: url).utf8.count }
    }
    Harness.report("filter-bind: parse + bind", value: bound / 1000, unit: "µs",
                   baseline: ("parse alone", parseOnly / 1000), budget: "≤ 5 µs")
    Harness.report("filter-bind: parse + bind + translate to SQL", value: full / 1000, unit: "µs",
                   baseline: ("parse alone", parseOnly / 1000), budget: "(none; for information)")
    if sink == 42 { print("") }
}

/// A reader over a throwaway in-memory model (no store file needed to translate).
func benchmarkReader() throws -> LocalReader {
    let model = try MetadataReader.read(benchmarkMetadata)
    return LocalReader(model: model, schema: try StoreSchema(model: model), dialect: .v4, serviceRoot: "http://localhost/service/")
}

let benchmarkMetadata = """
<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="Bench" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="Agency">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
        <Property Name="City" Type="Edm.String"/>
        <Property Name="Rating" Type="Edm.Int32"/>
        <Property Name="Revenue" Type="Edm.Decimal" Scale="variable"/>
        <Property Name="Founded" Type="Edm.DateTimeOffset"/>
      </EntityType>
      <EntityContainer Name="Container">
        <EntitySet Name="Agencies" EntityType="Bench.Agency"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""
