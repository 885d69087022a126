/// A navigation property resolved to the entity sets at both ends and to how the store joins them.
package struct BoundNavigation: Sendable, Equatable {
    package var name: String
    package var sourceSet: String
    package var sourceType: String
    package var targetSet: String
    package var targetType: String
    package var isCollection: Bool
    package var join: NavigationJoin
}

/// How the rows of two entity sets are related.
package enum NavigationJoin: Sendable, Equatable {
    /// Referential constraints: pairs of (source property, target property) that must be equal.
    case columns([ColumnPair])
    /// No referential constraint: the store's link table `ood_link` records the pairs, written from
    /// the source (`navigation`) or from the partner's side (`partner`, when the model names one).
    case linkTable(navigation: String, partner: String?)

    package struct ColumnPair: Sendable, Equatable {
        package var source: String
        package var target: String
    }
}

extension MetadataModel {
    /// How `navigation` (declared on `sourceType`) joins the two ends, preferring referential
    /// constraints on either side (V4 on the navigation or its partner, V2 on the association).
    func navigationJoin(_ navigation: NavigationProperty, sourceType: EntityType) -> NavigationJoin {
        if !navigation.referentialConstraints.isEmpty {
            return .columns(navigation.referentialConstraints.map { .init(source: $0.property, target: $0.referencedProperty) })
        }
        if let partnerName = navigation.partner, let target = entityType(named: navigation.targetTypeName),
           let partner = self.navigationProperty(partnerName, of: target), !partner.referentialConstraints.isEmpty {
            return .columns(partner.referentialConstraints.map { .init(source: $0.referencedProperty, target: $0.property) })
        }
        if let link = navigation.association, let association = association(named: link.relationship),
           let constraint = association.referentialConstraint, constraint.principalRole == link.fromRole,
           constraint.principalProperties.count == constraint.dependentProperties.count {
            return .columns(zip(constraint.principalProperties, constraint.dependentProperties).map { .init(source: $0.0, target: $0.1) })
        }
        return .linkTable(navigation: navigation.name, partner: navigation.partner)
    }
}
