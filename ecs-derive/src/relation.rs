//! `#[relationship(target = …)]`, `#[relationship_target(relationship = …)]` and
//! `#[entities]` on a `#[derive(Component)]`: parsing and validation.

use proc_macro::TokenStream;

use crate::error::{Error, Result};
use crate::read::{Field, Fields, Input, Kind, Member, Meta};

/// What a component says about the entities it holds.
pub enum Relation {
    /// An ordinary component.
    None,
    /// `#[relationship(target = Target)]`: `field` is the target entity; the
    /// struct's other fields are made with `Default`.
    Source { target: TokenStream, field: Member, others: Vec<Member> },
    /// `#[relationship_target(relationship = R)]`: `field` holds the sources.
    Target { relationship: TokenStream, field: Member, linked: bool },
}

/// The component's relation and the fields marked `#[entities]`.
pub struct EntityFields {
    pub relation: Relation,
    pub entities: Vec<Member>,
}

pub fn parse(input: &Input) -> Result<EntityFields> {
    let source = input.attrs.iter().find(|a| a.is("relationship"));
    let target = input.attrs.iter().find(|a| a.is("relationship_target"));
    let fields = (input.kind == Kind::Struct).then_some(&input.fields);
    let mut entities = Vec::new();
    if let Some(span) = entities_outside_a_struct(input) {
        return Err(Error::new(
            span,
            "`#[entities]` marks fields of a struct component; on an enum's variants a load could not remap the \
             entities, so it is refused: keep the entities in a struct component",
        ));
    }
    if let Some(fields) = fields {
        for (index, field) in fields.list().iter().enumerate() {
            if field.attrs.iter().any(|a| a.is("entities")) {
                entities.push(field.member(index));
            }
        }
    }
    let relation = match (source, target) {
        (Some(a), Some(_)) => {
            return Err(Error::new(
                a.span(),
                "a component is either a relationship (`#[relationship]`) or a relationship target \
                 (`#[relationship_target]`), not both",
            ));
        }
        (Some(attr), None) => {
            let fields = fields.ok_or_else(|| {
                Error::new(input.ident.span(), "`#[relationship]` needs a struct holding the target `Entity`")
            })?;
            let mut target = None;
            if !matches!(attr.meta, Meta::Path) {
                crate::meta::parse_nested(attr, |meta| {
                    if meta.is_ident("target") {
                        target = Some(meta.value()?.path()?);
                        Ok(())
                    } else {
                        Err(meta.error(
                            "unknown key in `#[relationship(...)]`; write `#[relationship(target = Followers)]`",
                        ))
                    }
                })?;
            }
            let target = target.ok_or_else(|| {
                Error::new(
                    attr.span(),
                    "`#[relationship]` is missing its target: write `#[relationship(target = Followers)]`, naming \
                     the component that lists the sources on the target entity",
                )
            })?;
            let (field, others) = relationship_field(input, fields)?;
            Relation::Source { target, field, others }
        }
        (None, Some(attr)) => {
            let fields = fields.ok_or_else(|| {
                Error::new(input.ident.span(), "`#[relationship_target]` needs a struct holding `RelationshipSources`")
            })?;
            let mut relationship = None;
            let mut linked = true;
            if !matches!(attr.meta, Meta::Path) {
                crate::meta::parse_nested(attr, |meta| {
                    if meta.is_ident("relationship") {
                        relationship = Some(meta.value()?.path()?);
                        Ok(())
                    } else if meta.is_ident("unlink") {
                        linked = false;
                        Ok(())
                    } else if meta.is_ident("linked_spawn") {
                        linked = true;
                        Ok(())
                    } else {
                        Err(meta.error(
                            "unknown key in `#[relationship_target(...)]`; the keys are `relationship = Following`, \
                         `linked_spawn` (the default: despawning the target despawns its sources) and `unlink` \
                         (despawning the target only removes their relationship)",
                        ))
                    }
                })?;
            }
            let relationship = relationship.ok_or_else(|| {
                Error::new(
                    attr.span(),
                    "`#[relationship_target]` is missing its relationship: write \
                     `#[relationship_target(relationship = Following)]`",
                )
            })?;
            if fields.list().len() != 1 {
                return Err(Error::new(
                    fields.span(),
                    "a relationship target holds exactly one field, the `RelationshipSources`: \
                     `struct Followers(RelationshipSources);`",
                ));
            }
            let field = fields.list()[0].member(0);
            Relation::Target { relationship, field, linked }
        }
        (None, None) => Relation::None,
    };
    Ok(EntityFields { relation, entities })
}

/// The target field of a relationship: the only field, or the one marked
/// `#[relationship]`; it must be an `Entity`.
fn relationship_field(input: &Input, fields: &Fields) -> Result<(Member, Vec<Member>)> {
    let all: Vec<(Member, &Field)> = fields.list().iter().enumerate().map(|(i, f)| (f.member(i), f)).collect();
    let marked: Vec<usize> = (0..all.len()).filter(|&i| all[i].1.attrs.iter().any(|a| a.is("relationship"))).collect();
    let chosen = match (all.len(), marked.as_slice()) {
        (0, _) => {
            return Err(Error::new(input.ident.span(), "a relationship holds its target: `struct Following(Entity);`"));
        }
        (1, _) => 0,
        (_, [one]) => *one,
        _ => {
            return Err(Error::new(
                fields.span(),
                "a relationship with several fields marks its target field `#[relationship]` (exactly one)",
            ));
        }
    };
    let field = all[chosen].1;
    if !field.ty.is_entity() {
        return Err(Error::new(
            field.ty.span(),
            "the target field of a relationship must be an `Entity` (the entity it points at); \
             store other data in further fields and mark the target `#[relationship]`",
        ));
    }
    let others = all.iter().enumerate().filter(|&(i, _)| i != chosen).map(|(_, (m, _))| m.clone()).collect();
    Ok((all[chosen].0.clone(), others))
}

/// Where `#[entities]` sits on an enum's variant fields or a union's fields.
fn entities_outside_a_struct(input: &Input) -> Option<proc_macro::Span> {
    fn find(tokens: proc_macro::TokenStream) -> Option<proc_macro::Span> {
        let tokens: Vec<proc_macro::TokenTree> = tokens.into_iter().collect();
        for (i, token) in tokens.iter().enumerate() {
            if let proc_macro::TokenTree::Group(group) = token {
                let is_attribute = group.delimiter() == proc_macro::Delimiter::Bracket
                    && i > 0
                    && matches!(&tokens[i - 1], proc_macro::TokenTree::Punct(p) if p.as_char() == '#');
                let first = group.stream().into_iter().next();
                if is_attribute
                    && matches!(&first, Some(proc_macro::TokenTree::Ident(id)) if id.to_string() == "entities")
                {
                    return Some(group.span());
                }
                if let Some(span) = find(group.stream()) {
                    return Some(span);
                }
            }
        }
        None
    }
    match input.kind {
        Kind::Enum => input.enum_body.as_ref().and_then(|body| find(body.stream())),
        Kind::Union => {
            input.fields.list().iter().find_map(|field| field.attrs.iter().find(|a| a.is("entities")).map(|a| a.span()))
        }
        Kind::Struct => None,
    }
}
