/// Which OData URL syntax a parser accepts.
///
/// The two are not compatible: V2 writes `datetime'2013-09-16T00:00'`, `1.5M`, `substringof(...)`,
/// `$inlinecount` and `$links`; V4 writes bare ISO dates, `in`, lambdas, `$count=true` and `$ref`.
/// Each store speaks its service's dialect, so the parser rejects the other one with a clear message.
public enum Dialect: Sendable, Equatable {
    case v2
    case v4
}
